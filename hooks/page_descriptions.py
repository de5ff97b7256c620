"""Give every page its own meta description, and fail the strict build when one has none.

Markdown pages carry ``description:`` in their front matter; a notebook carries it in its metadata
(``"description"`` next to ``kernelspec``), which mkdocs-jupyter does not read, so it is copied here.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.page_descriptions")


def on_page_context(context, page, config, nav, **kwargs):
    if page.file.src_uri.endswith(".ipynb") and not page.meta.get("description"):
        notebook = json.loads(Path(page.file.abs_src_path).read_text(encoding="utf-8"))
        page.meta["description"] = notebook.get("metadata", {}).get("description", "")
    if not str(page.meta.get("description", "")).strip():
        where = "its metadata" if page.file.src_uri.endswith(".ipynb") else "its front matter"
        log.warning(f"{page.file.src_uri} has no description: add one sentence as 'description' in {where}")
    return context
