"""The command that checks and records translations (qkv_site.translations.records)::

    python -m qkv_site.translations                                  # which English pages are behind
    python -m qkv_site.translations --update worked-example.md       # record what a page now translates
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from qkv_site.translations.records import SOURCE_LANG, TRANSLATION_LANG, check, record, source_pages


def _page_name(name: str) -> str:
    # Accept "worked-example", "worked-example.md", "docs/en/worked-example.md" or "en/worked-example.md".
    path = Path(name)
    parts = path.parts
    for lang in (SOURCE_LANG, TRANSLATION_LANG):
        if lang in parts:
            path = Path(*parts[parts.index(lang) + 1 :])
    return path.as_posix() if path.suffix in (".md", ".ipynb") else f"{path.as_posix()}.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m qkv_site.translations",
        description=f"List the {TRANSLATION_LANG} pages whose {SOURCE_LANG} source changed since they were translated.",
    )
    parser.add_argument("--docs", type=Path, default=Path("docs"), help="the docs folder (default: ./docs)")
    parser.add_argument(
        "--update",
        nargs="*",
        metavar="PAGE",
        help=f"after updating a translation: record the current hashes of its {SOURCE_LANG} page (no PAGE: every page)",
    )
    args = parser.parse_args(argv)
    docs: Path = args.docs
    try:
        if args.update is not None:
            pages = [_page_name(name) for name in args.update] or source_pages(docs)
            for page in pages:
                written = record(docs, page)
                print(f"{TRANSLATION_LANG}/{page}: {'recorded' if written else 'already up to date'}")
            return 0
        statuses = check(docs)
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    outdated = [status for status in statuses if status.outdated]
    for status in outdated:
        for line in status.report():
            print(line)
    if outdated:
        print(
            f"\n{len(outdated)} of {len(statuses)} {TRANSLATION_LANG} pages are behind their {SOURCE_LANG} source. "
            "Update the translation, then record it: python -m qkv_site.translations --update PAGE"
        )
        return 1
    print(f"all {len(statuses)} {TRANSLATION_LANG} pages translate the current {SOURCE_LANG} pages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
