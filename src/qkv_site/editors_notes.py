"""The editor's notes of the site, gathered from the pages for the page “勘误与编者注 / Corrections and editor's notes”.

Every place where the site departs from the article carries an editor's note: an admonition
``!!! note "编者注：…"`` (``!!! note "Editor's note: …"`` in English), preceded on its own line by
``<a id="note-SLUG"></a>``, with the same SLUG in both languages. The corrections page lists them
all, in the order of the nav (`qkv_site.pages.corrections`), so a new note appears there by itself;
a note without its anchor, or an anchor without its note, stops the build.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from qkv_site.markdown_source import MarkdownPage, parse
from qkv_site.site_map import NavEntry, load_site_map, nav_titles

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


def added_pages(config: Path = Path("mkdocs.yml")) -> list[NavEntry]:
    """The nav's pages that are additions of this site (`ADDED_PAGES`), in nav order, with their titles.

    >>> [entry.source for entry in added_pages()]
    ['notebook.ipynb', 'playground.md', 'learned-attention.md', 'beyond-quadratic.md']
    """
    entries = [entry for entry in nav_titles(config) if entry.source in ADDED_PAGES]
    missing = ADDED_PAGES - {entry.source for entry in entries}
    if missing:
        raise ValueError(f"{config}: the added pages {sorted(missing)} are not in the nav")
    return entries


def nav_pages(config: Path = Path("mkdocs.yml")) -> list[str]:
    """The Markdown pages of the nav of ``config``, in order (paths inside a language folder)."""
    return load_site_map(config).markdown_pages


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


def editors_notes(lang: str, docs: Path = Path("docs"), config: Path = Path("mkdocs.yml")) -> list[EditorsNote]:
    """Every editor's note of the site in language ``lang``, in nav order."""
    if lang not in NOTE_PREFIX:
        raise ValueError(f"lang must be one of {sorted(NOTE_PREFIX)}, got {lang!r}")
    notes = []
    for page in nav_pages(config):
        notes += notes_of_page((docs / lang / page).read_text(encoding="utf-8"), page, lang)
    return notes
