"""The corrections page lists every editor's note of the site, and every entry links to an existing anchor."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest
from bs4 import BeautifulSoup

from conftest import DOCS, ROOT
from qkv_site.content.corrections import NOTE_PREFIX, editors_notes, notes_of_page
from site_pages import built_path, nav_sources, page_url, parsed_page

LANGUAGES = list(NOTE_PREFIX)


def article_of(site: Path, source: str, lang: str) -> BeautifulSoup:
    return parsed_page(built_path(site, source, lang)).select_one("article")


def notes_on_the_built_site(site: Path, lang: str) -> set[tuple[str, str]]:
    """(page URL, anchor) of every editor's-note admonition a reader sees, each checked to have its anchor."""
    found = set()
    for source in nav_sources():
        for title in article_of(site, source, lang).select(".admonition-title"):
            if not title.get_text().startswith(NOTE_PREFIX[lang]):
                continue
            admonition = title.parent
            anchor = admonition.find_previous_sibling()
            anchor = anchor.select_one('a[id^="note-"]') if anchor else None
            assert anchor is not None, f"{lang}/{source}: the editor's note {title.get_text()!r} has no anchor just before it"
            found.add((page_url(source, lang), anchor["id"]))
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_editors_note_is_listed_and_every_entry_links_to_its_anchor(site: Path, lang: str) -> None:
    on_site = notes_on_the_built_site(site, lang)
    assert len(on_site) >= 3, f"{lang}: the step numbering, the units and W_K/W_V each carry a note; found {on_site}"
    base = page_url("corrections.md", lang)
    table = article_of(site, "corrections.md", lang).select_one("table")
    listed = set()
    for row in table.select("tbody tr"):
        target = urlparse(urljoin(base, row.select_one("td a")["href"]))
        listed.add((target.path, target.fragment))
        source = next(s for s in nav_sources() if page_url(s, lang) == target.path)
        assert article_of(site, source, lang).find(id=target.fragment), f"{lang}: {target.path}#{target.fragment} does not exist"
    assert listed == on_site, f"{lang}: listed but not on the site {listed - on_site}; on the site but not listed {on_site - listed}"


def test_both_languages_have_the_same_notes_with_the_same_anchors() -> None:
    zh, en = ([(note.page, note.anchor) for note in editors_notes(lang, DOCS, ROOT / "mkdocs.yml")] for lang in LANGUAGES)
    assert zh == en


def test_a_note_without_its_anchor_or_an_anchor_without_its_note_stops_the_build() -> None:
    with pytest.raises(ValueError, match="has no <a id"):
        notes_of_page('# 页 { #p }\n\n!!! note "编者注：单位"\n\n    正文。\n', "p.md", "zh")
    with pytest.raises(ValueError, match="not followed by an editor's note"):
        notes_of_page('# 页 { #p }\n\n<a id="note-units"></a>\n\n正文。\n', "p.md", "zh")
    with pytest.raises(ValueError, match="titles its editor's note"):
        notes_of_page('# Page { #p }\n\n<a id="note-units"></a>\n\n!!! note "编者注：单位"\n', "p.md", "en")
