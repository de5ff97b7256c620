"""Draw the site's figures from `qkv` into docs/{lang}/figures/ before MkDocs collects the files."""

from __future__ import annotations

import logging
import time
from pathlib import Path

from qkv_site.figures.fonts import static_font_path
from qkv_site.figures.registry import FIGURES, render_all

log = logging.getLogger("mkdocs.hooks.figures")


def on_pre_build(config, **kwargs) -> None:
    # mkdocs-static-i18n builds once per language and `mkdocs serve` rebuilds on every change:
    # render_all's stamp makes every call after the first one a hash and nothing else.
    if not static_font_path().exists():
        log.info(f"figures: making the figure font once, about a minute: {static_font_path()}")
    start = time.perf_counter()
    written = render_all(Path(config.docs_dir))
    if written:
        log.info(f"figures: wrote {len(written)} SVG files in {time.perf_counter() - start:.1f} s")
    else:
        log.info(f"figures: all {len(FIGURES)} figures up to date")
