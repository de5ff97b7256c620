"""The editor's notes of the site, gathered from the pages for the page “勘误与编者注 / Corrections and editor's notes”.

Every place where the site departs from the article carries an editor's note: an admonition
``!!! note "编者注：…"`` (``!!! note "Editor's note: …"`` in English), preceded on its own line by
``<a id="note-SLUG"></a>``, with the same SLUG in both languages. The corrections page lists them
all, in the order of the nav (`qkv_site.pages.corrections`), from the pages' texts the build hands it
(`qkv_site.site_nav.SiteNav`), so a new note appears there by itself; a note without its anchor, or an
anchor without its note, stops the build.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from qkv_site.markdown_source import MarkdownPage, parse
from qkv_site.site_map import NavEntry
from qkv_site.site_nav import SiteNav

NOTE_PREFIX = {"zh": "编者注：", "en": "Editor's note: "}
# The pages of the nav that are this site's additions, not part of the article: the corrections page lists them
# among the additions and the home page's reading path names them, both from here (`added_pages`).
ADDED_PAGES = frozenset({"notebook.ipynb", "playground.md", "learned-attention.md", "beyond-quadratic.md"})
_ANCHOR = re.compile(r'^\s*<a id="(note-[a-z0-9-]+)"></a>\s*$')
_TITLE_LINE = re.compile(r'!!! note "(?P<prefix>编者注：|Editor\'s note: )(?P<title>[^"]+)"')
# The anchor and its note are a few lines apart at most (the note may be printed by a build-time block).
_NEARBY_LINES = 6


@dataclass(frozen=True)
class EditorsNote:
    """One editor's note: the page it is on (``summary-flow.md``), its anchor and its title."""

    page: str
    anchor: str
    title: str
    page_title: str


def added_pages(entries: Sequence[NavEntry]) -> list[NavEntry]:
    """The nav's pages that are additions of this site (`ADDED_PAGES`), in nav order, with their titles.

    >>> from pathlib import Path
    >>> from qkv_site.site_map import nav_titles
    >>> [entry.source for entry in added_pages(nav_titles(Path("mkdocs.yml")))]
    ['notebook.ipynb', 'playground.md', 'learned-attention.md', 'beyond-quadratic.md']
    """
    found = [entry for entry in entries if entry.source in ADDED_PAGES]
    missing = ADDED_PAGES - {entry.source for entry in found}
    if missing:
        raise ValueError(f"the added pages {sorted(missing)} are not in the nav")
    return found


def _page_title(page_source: MarkdownPage, page: str) -> str:
    title = next((heading.title for heading in page_source.headings if heading.level == 1), None)
    if title is None:
        raise ValueError(f"{page} has no level-1 heading to name it by")
    return title.removeprefix("📌").strip()


def notes_of_page(text: str, page: str, lang: str) -> list[EditorsNote]:
    """The editor's notes of one page, each checked to sit right after its anchor.

    >>> page = 'Text.\\n\\n<a id="note-units"></a>\\n\\n!!! note "Editor\\'s note: units"\\n\\n    MiB, not MB.\\n'
    >>> [(n.anchor, n.title) for n in notes_of_page("# Cost { #cost }\\n\\n" + page, "cost.md", "en")]
    [('note-units', 'units')]
    >>> notes_of_page('# Cost\\n\\n!!! note "Editor\\'s note: units"\\n', "cost.md", "en")
    Traceback (most recent call last):
    ...
    ValueError: cost.md line 3: the editor's note 'units' has no <a id="note-…"></a> on its own line just before it
    """
    source = parse(text)
    titles = {i: m for i, line in enumerate(source.lines) if (m := _TITLE_LINE.search(line))}
    anchors = {i: m.group(1) for i, line in enumerate(source.lines) if (m := _ANCHOR.match(line))}
    notes, used = [], set()
    for i, match in titles.items():
        if match.group("prefix") != NOTE_PREFIX[lang]:
            raise ValueError(f"{page} line {i + 1}: a {lang} page titles its editor's note {NOTE_PREFIX[lang]!r}…")
        before = [j for j in anchors if i - _NEARBY_LINES <= j < i and j not in used]
        if not before:
            raise ValueError(
                f"{page} line {i + 1}: the editor's note {match.group('title')!r} has no "
                '<a id="note-…"></a> on its own line just before it'
            )
        used.add(before[-1])
        notes.append(EditorsNote(page, anchors[before[-1]], match.group("title").strip(), _page_title(source, page)))
    stray = [anchors[j] for j in anchors if j not in used]
    if stray:
        raise ValueError(f"{page}: the anchors {stray} are not followed by an editor's note")
    return notes


def editors_notes(nav: SiteNav) -> list[EditorsNote]:
    """Every editor's note of the pages of ``nav``, in nav order, in its language.

    >>> page = '# Cost\\n\\n<a id="note-units"></a>\\n\\n!!! note "Editor\\'s note: units"\\n'
    >>> nav = SiteNav("en", (NavEntry("cost.md", {"en": "Cost"}, {"en": None}),), {"cost.md": page})
    >>> [(note.page, note.anchor, note.page_title) for note in editors_notes(nav)]
    [('cost.md', 'note-units', 'Cost')]
    """
    if nav.lang not in NOTE_PREFIX:
        raise ValueError(f"lang must be one of {sorted(NOTE_PREFIX)}, got {nav.lang!r}")
    notes = []
    for page in nav.markdown_pages:
        notes += notes_of_page(nav.sources[page], page, nav.lang)
    return notes
