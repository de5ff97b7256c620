"""The rows of the page “勘误与编者注 / Corrections and editor's notes”: every editor's note of the
site, per language, in nav order (`qkv_site.editors_notes`).

The list is read from the pages' own text, so unlike the other pages' values it is not kept between
builds (`KEPT_BETWEEN_BUILDS`): a note added to another page appears in the list at the next build
or `mkdocs serve` rebuild. Reading them is a few milliseconds.

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> notes = values(project)["notes"]
>>> [note.anchor for note in notes["zh"]] == [note.anchor for note in notes["en"]]
True
"""

from __future__ import annotations

from typing import Any

from qkv_site.editors_notes import NOTE_PREFIX, EditorsNote, added_pages, editors_notes
from qkv_site.project import Project

KEPT_BETWEEN_BUILDS = False  # read from the pages' text: qkv_site.builder.page_values computes it every build


def notes(lang: str, project: Project) -> list[EditorsNote]:
    """The editor's notes of ``lang`` in ``project``'s pages; none at all is an error (the page would show an empty table)."""
    found = editors_notes(lang, project.docs_dir, project.config_file)
    if not found:
        raise ValueError(f"no editor's note found in {project.docs_dir / lang}")
    return found


def values(project: Project) -> dict[str, Any]:
    return {"notes": {lang: notes(lang, project) for lang in NOTE_PREFIX},
            "additions": [entry.source for entry in added_pages(project.config_file)]}
