"""The site's nav (mkdocs.yml), flattened: every page in reading order."""

from __future__ import annotations

from typing import Any


def flatten_nav(items: list[Any]) -> list[str]:
    """The page paths of a nav, depth first: sections ({title: [...]}) opened, titles dropped.

    >>> flatten_nav(["index.md", {"正文": ["motivation.md", {"步骤": "worked-example.md"}]}])
    ['index.md', 'motivation.md', 'worked-example.md']
    """
    pages: list[str] = []
    for item in items:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages.extend(flatten_nav(value) if isinstance(value, list) else [value])
    return pages
