"""The glossary's terms (qkv_site.content.glossary): each names the section that explains it, in both languages."""

from __future__ import annotations

import pytest

from conftest import DOCS, LANGUAGES
from qkv_site.content.glossary import TERMS
from qkv_site.markdown_source import read
from site_pages import SITE_MAP


@pytest.mark.parametrize("term", TERMS, ids=[term.text for term in TERMS])
def test_a_term_names_a_heading_of_a_page_of_the_nav_in_both_languages(term) -> None:
    source, _, anchor = term.section.partition("#")
    assert source in SITE_MAP.nav, f"{term.text}: {term.section} is not a page of the nav"
    for lang in LANGUAGES:
        anchors = [heading.anchor for heading in read(DOCS / lang / source).headings]
        assert not anchor or anchor in anchors, f"{term.text}: docs/{lang}/{source} has no heading {{ #{anchor} }}; it has {anchors}"
