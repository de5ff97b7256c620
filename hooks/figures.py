"""Draw the site's figures from `qkv` into docs/{lang}/figures/ before MkDocs collects the files,
and end every figure's caption with a link to the code that drew it."""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

from qkv_site.figure_markup import SOURCE_LABEL, source_url  # shared with the figures code blocks print
from qkv_site.figures.stamp import up_to_date

log = logging.getLogger("mkdocs.hooks.figures")

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
