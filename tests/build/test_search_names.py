"""qkv_site.search.names: the words an index entry is searched by besides its heading and text."""

from __future__ import annotations

import re

import pytest

from qkv_site.glossary import TERMS
from qkv_site.search.names import ABOUT_BOOST, SYMBOL_WORDS, SearchPage, add_names
from qkv_site.search.words import pieces

SEPARATOR = r"[\s\u200b\-、。，？：（）,:?()]+"
CROSS = next(term for term in TERMS if term.text == "Cross-Attention")
PAGES = [
    SearchPage("", "zh", "index.md", "首页", "一个双语网站。"),
    SearchPage("why-sqrt-dk/", "zh", "why-sqrt-dk.md", "缩放因子为什么是 √dₖ？", "说明为什么除以 √dₖ。"),
    SearchPage("en/learned-attention/", "en", "learned-attention.md", "Watching a model learn to attend", "Models trained over seeds."),
    SearchPage("en/self-vs-cross/", "en", "self-vs-cross.md", "Self-attention vs cross-attention", "Two kinds compared."),
]


def index(*docs: tuple[str, str]) -> dict:
    return {"config": {"separator": SEPARATOR, "fields": {"title": {"boost": 1000.0}, "text": {"boost": 1.0}}},
            "docs": [{"location": location, "title": title, "text": ""} for location, title in docs]}


def named(built: dict) -> dict[str, tuple[str | None, str | None]]:
    return {doc["location"]: (doc.get("names"), doc.get("about")) for doc in built["docs"]}


def test_a_page_is_searched_by_its_nav_title_address_and_description_where_its_heading_lacks_them() -> None:
    built = index(("", "Transformer\u200b原理"), ("why-sqrt-dk/", "📌\u200b深入\u200b理解\u200b：\u200b缩放\u200b因子\u200b为什么\u200b是\u200b √dₖ？"),
                  ("en/learned-attention/", "📌 Deep dive: watching a model learn to attend"))
    add_names(built, PAGES, terms=())
    names = named(built)
    assert names[""][0] == "首页"  # the home page is 首页 in the nav only; it has no address of its own
    assert names["en/learned-attention/"][0] == "learned attention"  # its address; its title says “learn to attend”
    sqrt_names = names["why-sqrt-dk/"][0].split()
    assert set(sqrt_names) == {"why", "sqrt", "dk", *SYMBOL_WORDS["√"]["zh"]}, sqrt_names  # the nav title adds no word
    assert names["why-sqrt-dk/"][1] == "说明 为什么 除以 √dₖ"
    assert built["config"]["fields"]["names"] == {"boost": 1000.0} and built["config"]["fields"]["about"] == {"boost": ABOUT_BOOST}


def test_a_section_is_searched_by_the_glossary_terms_it_explains_and_a_one_word_heading_by_itself() -> None:
    anchor = CROSS.section.split("#")[1]
    built = index(("en/self-vs-cross/", "📌 Deep dive: self-attention vs cross-attention"),
                  (f"en/self-vs-cross/#{anchor}", "Why do we need cross-attention?"), ("en/self-vs-cross/#table", "Comparison"))
    add_names(built, PAGES, terms=(CROSS,))
    names = named(built)
    # its Chinese name, cut as jieba cuts it (the build loads the site's dictionary, which keeps it whole); its heading holds the rest
    assert names[f"en/self-vs-cross/#{anchor}"] == (" ".join(pieces(CROSS.zh)), None)
    assert names["en/self-vs-cross/#table"] == ("comparison", None)
    assert names["en/self-vs-cross/"][0] is None  # its nav title and address (self-vs-cross) say nothing its heading lacks


def test_an_entry_of_a_page_the_build_did_not_record_stops_the_build() -> None:
    with pytest.raises(ValueError, match=re.escape("'unknown/#x'")):
        add_names(index(("unknown/#x", "X")), PAGES, terms=())


def test_a_glossary_term_explained_in_a_section_the_index_lacks_stops_the_build() -> None:
    with pytest.raises(ValueError, match="sections the search index does not hold"):
        add_names(index(("en/self-vs-cross/", "Self-attention vs cross-attention")), PAGES, terms=(CROSS,))
