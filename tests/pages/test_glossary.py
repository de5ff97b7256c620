"""The page “术语表 / Glossary”: its terms (qkv_site.glossary) each name the section that explains it,
in both languages, and its rows are the terms the tooltips use."""

from __future__ import annotations

import pytest
from repository import DOCS, LANGUAGES
from site_pages import SITE_MAP, rendered

from qkv_site.glossary import TERMS
from qkv_site.markdown_source import read
from qkv_site.project import Project


@pytest.mark.parametrize("term", TERMS, ids=[term.text for term in TERMS])
def test_a_term_names_a_heading_of_a_page_of_the_nav_in_both_languages(term) -> None:
    source, _, anchor = term.section.partition("#")
    assert source in SITE_MAP.nav, f"{term.text}: {term.section} is not a page of the nav"
    for lang in LANGUAGES:
        anchors = [heading.anchor for heading in read(DOCS / lang / source).headings]
        assert not anchor or anchor in anchors, f"{term.text}: docs/{lang}/{source} has no heading {{ #{anchor} }}; it has {anchors}"


# The glossary's rows ------------------------------------------------------------------------------


def test_glossary_rows_are_the_terms_the_tooltips_use(project: Project) -> None:
    from qkv_site.glossary import TERMS

    for lang in LANGUAGES:
        rows = [line for line in rendered("glossary.md", lang, project).splitlines() if line.startswith("| [**")]
        expected = [f"| [**{t.text}**]({t.section}) | {t.zh} | {t.en} | {t.zh_meaning} |" if lang == "zh" else
                    f"| [**{t.text}**]({t.section}) | {t.en} | {t.zh} | {t.en_meaning} |" for t in TERMS]
        assert rows == expected, lang
