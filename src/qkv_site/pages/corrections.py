"""The rows of the page “勘误与编者注 / Corrections and editor's notes”: every editor's note of the
site, per language, in nav order (`qkv_site.corrections`).

The list is read from the pages' own text, so unlike the other pages' values it is not kept between
builds: `mkdocs serve` keeps this module imported, and a note added to another page must appear in
the list at the next rebuild. The page's Markdown is rendered at every build (a cached build
reuses code blocks' output, never a page's named values), so a cached build lists the notes the
pages have now. Reading them is a few milliseconds.

>>> notes = values()["notes"]
>>> [note.anchor for note in notes["zh"]] == [note.anchor for note in notes["en"]]
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qkv_site.corrections import NOTE_PREFIX, EditorsNote, editors_notes


def notes(lang: str, docs: Path = Path("docs"), config: Path = Path("mkdocs.yml")) -> list[EditorsNote]:
    """The editor's notes of ``lang``; none at all is an error (the page would show an empty table)."""
    found = editors_notes(lang, docs, config)
    if not found:
        raise ValueError(f"no editor's note found in {docs / lang}; run the build from the repository's root")
    return found


def values() -> dict[str, Any]:
    return {"notes": {lang: notes(lang) for lang in NOTE_PREFIX}}
