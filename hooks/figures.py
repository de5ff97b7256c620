"""Draw the site's figures from `qkv` into docs/{lang}/figures/ before MkDocs collects the files."""

from __future__ import annotations

import logging
import time
from pathlib import Path

from qkv_site.figures.stamp import up_to_date

log = logging.getLogger("mkdocs.hooks.figures")


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
