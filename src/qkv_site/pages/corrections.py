"""The rows of the page “勘误与编者注 / Corrections and editor's notes”: every editor's note of the
language being built, in nav order (`qkv_site.editors_notes`), and the pages that are the site's additions.

The list is made from the nav and the pages' texts the build hands over (`qkv_site.site_nav.SiteNav`,
``TAKES_NAV``): a note added to another page appears in the list at the next build or `mkdocs serve`
rebuild, and the values are kept between builds under the nav's digest, which changes with any page's text.

>>> from pathlib import Path
>>> from qkv_site.project import load_project
>>> from qkv_site.site_nav import read_nav
>>> notes = {lang: values(load_project("mkdocs.yml"), read_nav(Path("mkdocs.yml"), Path("docs"), lang))["notes"][lang]
...          for lang in ("zh", "en")}
>>> [note.anchor for note in notes["zh"]] == [note.anchor for note in notes["en"]]
True
"""

from __future__ import annotations

from typing import Any

from qkv_site.editors_notes import EditorsNote, added_pages, editors_notes
from qkv_site.project import Project
from qkv_site.site_nav import SiteNav

TAKES_NAV = True  # values(project, nav): qkv_site.builder.page_values hands it the nav of the language being built


def notes(nav: SiteNav) -> list[EditorsNote]:
    """The editor's notes of ``nav``'s pages; none at all is an error (the page would show an empty table)."""
    found = editors_notes(nav)
    if not found:
        raise ValueError(f"no editor's note found in the {nav.lang} pages of the nav")
    return found


def values(project: Project, nav: SiteNav) -> dict[str, Any]:
    return {"notes": {nav.lang: notes(nav)}, "additions": [entry.source for entry in added_pages(nav.entries)]}
