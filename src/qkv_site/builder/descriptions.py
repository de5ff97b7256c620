"""Every page has its own meta description; a page without one is a warning, so the strict build fails.

Markdown pages carry ``description:`` in their front matter; a notebook carries it in its metadata
(``"description"`` next to ``kernelspec``), which mkdocs-jupyter does not read, so it is copied.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def description(meta: Mapping[str, Any], src_uri: str, abs_src_path: str) -> tuple[str, str | None]:
    """The page's description and, when it has none, the warning that says where to add it."""
    found = str(meta.get("description", "") or "")
    if src_uri.endswith(".ipynb") and not found:
        notebook = json.loads(Path(abs_src_path).read_text(encoding="utf-8"))
        found = str(notebook.get("metadata", {}).get("description", ""))
    if found.strip():
        return found, None
    where = "its metadata" if src_uri.endswith(".ipynb") else "its front matter"
    return found, f"{src_uri} has no description: add one sentence as 'description' in {where}"
