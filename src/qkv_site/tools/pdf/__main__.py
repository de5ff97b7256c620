"""``python -m qkv_site.tools.pdf``: make the PDF of every language from a built site."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from qkv_site.site_map import load_site_map
from qkv_site.tools.local_browser import CHROMIUM
from qkv_site.tools.pdf import pdf_path
from qkv_site.tools.pdf.chromium import print_pages
from qkv_site.tools.pdf.combine import combined_html


def build_pdfs(site: Path, config_file: Path, browser: Path = CHROMIUM, langs: list[str] | None = None) -> dict[str, Path]:
    """Write the PDF of each language of ``langs`` (default: every language of the site); return their paths."""
    if not (site / "index.html").is_file():
        raise FileNotFoundError(f"{site} is not a built site (no index.html): run mkdocs build first")
    site_map = load_site_map(config_file)
    root_home = site_map.root_home  # an error if the configuration builds no language (no i18n plugin)
    wanted = langs or list(site_map.languages)
    unknown = sorted(set(wanted) - set(site_map.languages))
    if unknown:
        raise ValueError(f"unknown languages {unknown}: the site has {list(site_map.languages)}")
    pages = {lang: combined_html(site, site_map.pages(lang), root_home) for lang in wanted}
    outputs = {lang: pdf_path(site, lang) for lang in wanted}
    print_pages(site, pages, outputs, browser)
    return outputs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m qkv_site.tools.pdf", description=__doc__)
    parser.add_argument("--site-dir", type=Path, default=Path("site"),
                        help="the built site (default: site); the PDFs go to <site-dir>/pdf/")
    parser.add_argument("--config-file", type=Path, default=Path("mkdocs.yml"),
                        help="the MkDocs configuration whose nav gives the order (default: mkdocs.yml)")
    parser.add_argument("--browser", type=Path, default=CHROMIUM, help=f"the Chromium to print with (default: {CHROMIUM})")
    parser.add_argument("--lang", action="append", help="only this language (repeatable; default: every language)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    outputs = build_pdfs(args.site_dir, args.config_file, args.browser, args.lang)
    for lang, path in outputs.items():
        print(f"{lang}: {path} ({path.stat().st_size / 1e6:.1f} MB)")
    print(f"made {len(outputs)} PDFs in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
