"""Translation records: which version of its Chinese source each English page translates.

The Chinese pages are the source. Each English page keeps in its front matter a short hash of
every section of its Chinese page (a section starts at a level-1 or level-2 heading with an
explicit id, ``## 标题 { #id }``, or ``<h2 id="id">`` in a notebook; a notebook keeps its record in
its metadata). When a Chinese section changes, its hash no longer matches the
record and the English page is outdated until someone updates the translation and records the
new hashes. Content hashes, not dates: they survive shallow clones, rebases and copies.

Check every page (exit status 1 if any English page is behind its Chinese source)::

    python -m qkv_site.translations

After updating the English translation of a page, record what it now translates::

    python -m qkv_site.translations --update worked-example.md

``--update`` with no page records every page; ``--docs DIR`` works on another copy of ``docs/``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from qkv_site.markdown_source import parse

SOURCE_LANG = "zh"
TRANSLATION_LANG = "en"
RECORD_KEY = "translation"
PREAMBLE = "_preamble"  # text before the first heading with an id, if any

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*\n", re.DOTALL)
_RECORD_COMMENT = f"# the {SOURCE_LANG} sections translated here; re-record: python -m qkv_site.translations --update PAGE"


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The YAML front matter of a Markdown page (``{}`` if none) and the rest of the page.

    >>> split_front_matter("---\\ntitle: A\\n---\\n# Body\\n")
    ({'title': 'A'}, '# Body\\n')
    >>> split_front_matter("# Body\\n")
    ({}, '# Body\\n')
    """
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    meta = yaml.safe_load(match.group(1) or "") or {}
    if not isinstance(meta, dict):
        raise ValueError(f"the front matter must be a YAML mapping, got {type(meta).__name__}")
    return meta, text[match.end() :]


def sections(text: str) -> dict[str, str]:
    """The page cut into sections at each ``#`` or ``##`` heading with an explicit id: {id: text}.

    Headings inside code blocks or containers (``!!! note``) do not count (qkv_site.markdown_source
    reads the page); text before the first such heading is the
    section ``_preamble`` (front matter included: a changed title is a change too). Trailing spaces
    and blank lines around a section are ignored.

    >>> page = "# Title { #top }\\nIntro.\\n\\n## Part { #part }\\nBody.\\n```\\n## not { #x }\\n```\\n"
    >>> list(sections(page))
    ['top', 'part']
    >>> sections(page)["part"]
    '## Part { #part }\\nBody.\\n```\\n## not { #x }\\n```'
    """
    page = parse(text)
    starts = {h.line - 1: h.anchor for h in page.headings if h.top_level and h.level <= 2 and h.anchor}
    found: dict[str, list[str]] = {}
    current = PREAMBLE
    for number, line in enumerate(page.lines):
        if number in starts:
            current = starts[number]
            if current in found:
                raise ValueError(f"the section id #{current} appears twice")
        found.setdefault(current, []).append(line.rstrip())
    cleaned = {key: "\n".join(lines).strip("\n") for key, lines in found.items()}
    return {key: value for key, value in cleaned.items() if value or key != PREAMBLE}


def notebook_text(text: str) -> str:
    """A notebook's cells as one Markdown text (code cells fenced), for `sections`.

    >>> cells = [{"cell_type": "markdown", "source": ['<h2 id="a">A</h2>']}, {"cell_type": "code", "source": "x = 1"}]
    >>> print(notebook_text(json.dumps({"cells": cells, "metadata": {}})))
    <h2 id="a">A</h2>
    <BLANKLINE>
    ```python
    x = 1
    ```
    """
    cells = json.loads(text)["cells"]
    parts = []
    for cell in cells:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        parts.append(source if cell["cell_type"] == "markdown" else f"```python\n{source}\n```")
    return "\n\n".join(parts)


def _source_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return notebook_text(text) if path.suffix == ".ipynb" else text


def section_hashes(text: str) -> dict[str, str]:
    """A 12-hex-digit SHA-256 prefix of every section of a page, in page order.

    >>> section_hashes("# Title { #top }\\nIntro.\\n")
    {'top': 'f9fea6df7e64'}
    """
    return {key: hashlib.sha256(value.encode("utf-8")).hexdigest()[:12] for key, value in sections(text).items()}


def recorded_hashes(text: str, notebook: bool = False) -> dict[str, str] | None:
    """The section hashes an English page (or notebook) records, or None if it records none."""
    meta = json.loads(text).get("metadata", {}) if notebook else split_front_matter(text)[0]
    return recorded_in(meta)


def recorded_in(meta: Mapping[str, Any]) -> dict[str, str] | None:
    """The section hashes recorded in a page's front matter (or a notebook's metadata), or None if none.

    >>> recorded_in({"title": "A", "translation": {"top": "f9fea6df7e64"}})
    {'top': 'f9fea6df7e64'}
    >>> recorded_in({"title": "A"}) is None
    True
    """
    record = meta.get(RECORD_KEY)
    if record is None:
        return None
    if not isinstance(record, dict):
        raise ValueError(f"the front matter key {RECORD_KEY!r} must map section ids to hashes")
    return {str(key): str(value) for key, value in record.items()}


@dataclass(frozen=True)
class PageStatus:
    """How an English page stands against its Chinese source, section by section."""

    page: str  # path inside a language folder, e.g. "worked-example.md"
    missing: bool = False  # no English page at all
    unrecorded: bool = False  # the English page records no hashes
    changed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    @property
    def outdated(self) -> bool:
        return self.missing or self.unrecorded or bool(self.changed or self.added or self.removed)

    @property
    def sections_to_read(self) -> tuple[str, ...]:
        """The Chinese sections a reader of the outdated translation should read in the original."""
        return tuple(key for key in self.changed + self.added if key != PREAMBLE)

    def report(self) -> list[str]:
        """Human-readable lines, one per problem (empty when up to date)."""
        where = f"{TRANSLATION_LANG}/{self.page}"
        if self.missing:
            return [f"{where}: missing (the {SOURCE_LANG} page has no translation)"]
        if self.unrecorded:
            return [f"{where}: records no source hashes ({RECORD_KEY!r} in its front matter or notebook metadata)"]
        lines = [f"{where}: section #{key} changed in {SOURCE_LANG}/{self.page}" for key in self.changed]
        lines += [f"{where}: section #{key} is new in {SOURCE_LANG}/{self.page}" for key in self.added]
        lines += [f"{where}: section #{key} was removed from {SOURCE_LANG}/{self.page}" for key in self.removed]
        return lines


def source_pages(docs: Path) -> list[str]:
    """The Markdown pages of the source language, as paths inside its folder."""
    folder = docs / SOURCE_LANG
    if not folder.is_dir():
        raise FileNotFoundError(f"no {SOURCE_LANG} folder in {docs}; pass --docs with the site's docs folder")
    pages = [path for path in folder.rglob("*") if path.suffix in (".md", ".ipynb") and "figures" not in path.parts]
    return sorted(path.relative_to(folder).as_posix() for path in pages)


def page_status(page: str, source: str, recorded: dict[str, str] | None) -> PageStatus:
    """Compare the hashes an English page records with those of its Chinese page's text ``source``.

    ``source`` is the whole Chinese page, front matter included (a notebook as its `notebook_text`);
    ``recorded`` is what the English page records (`recorded_in`). The build passes the texts it read
    (qkv_site.translations.notice), the command line those of the files (`file_status`).

    >>> page_status("a.md", "# A { #a }\\nOne.\\n", {"a": "0" * 12}).changed
    ('a',)
    >>> page_status("a.md", "# A { #a }\\nOne.\\n", None).unrecorded
    True
    """
    current = section_hashes(source)
    if recorded is None:
        return PageStatus(page, unrecorded=True)
    return PageStatus(
        page,
        changed=tuple(key for key in current if key in recorded and recorded[key] != current[key]),
        added=tuple(key for key in current if key not in recorded),
        removed=tuple(key for key in recorded if key not in current),
    )


def file_status(docs: Path, page: str) -> PageStatus:
    """`page_status` of ``docs/en/<page>`` against ``docs/zh/<page>``, both read from their files."""
    source, translation = docs / SOURCE_LANG / page, docs / TRANSLATION_LANG / page
    if not translation.is_file():
        return PageStatus(page, missing=True)
    recorded = recorded_hashes(translation.read_text(encoding="utf-8"), notebook=translation.suffix == ".ipynb")
    return page_status(page, _source_text(source), recorded)


def check(docs: Path) -> list[PageStatus]:
    """The status of every page read from ``docs``; the outdated ones are those with `.outdated`."""
    return [file_status(docs, page) for page in source_pages(docs)]


def _record_block(hashes: dict[str, str]) -> str:
    lines = [f"{RECORD_KEY}:  {_RECORD_COMMENT}"] + [f"  {key}: '{value}'" for key, value in hashes.items()]
    return "\n".join(lines) + "\n"


def record(docs: Path, page: str) -> bool:
    """Write the current hashes of ``docs/zh/<page>`` into the front matter of ``docs/en/<page>``.

    Only the front matter (a notebook's metadata) changes; returns whether the file was rewritten.
    """
    source, translation = docs / SOURCE_LANG / page, docs / TRANSLATION_LANG / page
    if not source.is_file():
        raise FileNotFoundError(f"{source} does not exist; pages are named as in {SOURCE_LANG}/, e.g. worked-example.md")
    if not translation.is_file():
        raise FileNotFoundError(f"{translation} does not exist: translate the page before recording it")
    hashes = section_hashes(_source_text(source))
    text = translation.read_text(encoding="utf-8")
    if translation.suffix == ".ipynb":
        notebook = json.loads(text)
        notebook.setdefault("metadata", {})[RECORD_KEY] = hashes
        updated = json.dumps(notebook, indent=1, ensure_ascii=False, sort_keys=True) + "\n"  # nbformat's own layout
    else:
        meta, body = split_front_matter(text)
        others = {key: value for key, value in meta.items() if key != RECORD_KEY}
        front = yaml.safe_dump(others, allow_unicode=True, sort_keys=False) if others else ""
        updated = f"---\n{front}{_record_block(hashes)}---\n\n{body.lstrip(chr(10))}"
    if updated == text:
        return False
    translation.write_text(updated, encoding="utf-8")
    return True
