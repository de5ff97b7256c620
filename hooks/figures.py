"""Draw the site's figures from `qkv` into docs/{lang}/figures/ before MkDocs collects the files,
and end every figure's caption with a link to the code that drew it."""

from __future__ import annotations

import importlib.util
import logging
import re
import time
from pathlib import Path

import qkv_site
from qkv_site.figures.stamp import up_to_date

log = logging.getLogger("mkdocs.hooks.figures")

# The repository the figure modules are imported from (src/qkv_site/figures/… → its root): a build
# of a copy of the docs still links to the code that really drew its figures.
ROOT = Path(qkv_site.__file__).resolve().parents[2]
SOURCE_LABEL = {"zh": "绘图代码", "en": "Figure code"}
_FIGURE = re.compile(r"<figure\b.*?</figure>", re.DOTALL)
_IMAGE = re.compile(r"\(figures/(\w+)\.light\.svg#only-light\)")


def on_pre_build(config, **kwargs) -> None:
    # mkdocs-static-i18n builds once per language and `mkdocs serve` rebuilds on every change:
    # when the stamps are current this is one hash, without even importing matplotlib.
    docs = Path(config.docs_dir)
    if up_to_date(docs):
        log.info("figures: all up to date")
        return
    from qkv_site.figures.fonts import static_font_path
    from qkv_site.figures.registry import render_all

    if not static_font_path().exists():
        log.info(f"figures: making the figure font once, a few seconds: {static_font_path()}")
    start = time.perf_counter()
    written = render_all(docs)
    log.info(f"figures: wrote {len(written)} SVG files in {time.perf_counter() - start:.1f} s")


def source_url(name: str, repo_url: str) -> str:
    """The repository address of the module that draws figure `name`: qkv_site.figures.<name>
    (tests/test_figures.py checks that each figure is drawn by the module of its name). It is found
    without importing it, so a build whose figures are current never loads matplotlib for a link."""
    spec = importlib.util.find_spec(f"qkv_site.figures.{name}") if name.isidentifier() else None
    if spec is None or spec.origin is None:
        raise ValueError(f"figures/{name}.*.svg is not one of the site's figures: no module qkv_site.figures.{name}")
    path = Path(spec.origin).resolve().relative_to(ROOT)
    return f"{repo_url.rstrip('/')}/blob/main/{path.as_posix()}"


def on_page_markdown(markdown: str, page, config, **kwargs) -> str:
    lang = page.file.src_uri.split("/", 1)[0]
    if lang not in SOURCE_LABEL:
        return markdown

    def link_source(figure: re.Match[str]) -> str:
        block = figure.group(0)
        image = _IMAGE.search(block)
        if not image or "</figcaption>" not in block:
            raise ValueError(f"{page.file.src_uri}: a figure without a light-scheme image or a caption:\n{block}")
        link = f' <a class="figure-source" href="{source_url(image.group(1), config.repo_url)}">{SOURCE_LABEL[lang]}</a>'
        return block.replace("</figcaption>", link + "</figcaption>")

    return _FIGURE.sub(link_source, markdown)
