"""The English pages follow the mechanical rules of the style sheet (tests/support/english_style.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag
from english_style import lower_case_roles, miscapitalised, symbols_in_sentence, wrong_spellings
from page_sources import notebook_cells, source
from site_pages import built_page, nav_sources

# Pages whose text is being rewritten as a whole: the rule on Query, Key and Value applies to them once that is done.
ROLES_NOT_YET_CHECKED: set[str] = set()

# Formulas, code and quoted interface text are not sentences.
NOT_PROSE = "code, pre, .arithmatex, script, style, svg, kbd"


def running_text(block: Tag) -> str:
    """The text of a paragraph or list item as a reader reads it, without formulas and code."""
    block = BeautifulSoup(str(block), "html.parser")
    for node in block.select(NOT_PROSE):
        node.replace_with(" ")
    for nested in block.select("ul, ol"):  # a nested list is checked as list items of its own
        nested.decompose()
    return " ".join(block.get_text(" ").split())


def sentences_of(html: str) -> list[str]:
    return sentences_in(BeautifulSoup(html, "html.parser").select_one("article"))


def sentences_in(article: Tag) -> list[str]:
    """The running text of an article's paragraphs and list items (those outside tables, figures and navigation)."""
    blocks = [block for block in article.select("p, li") if not block.find_parent(["table", "figure", "nav"])]
    return [text for text in (running_text(block) for block in blocks) if text]


@pytest.fixture(scope="module")
def english_pages(site: Path) -> dict[str, list[str]]:
    return {source: sentences_in(built_page(site, source, "en").select_one("article")) for source in nav_sources()}


def test_the_rules_catch_a_translated_sample() -> None:
    sample = "<article><p>Every Token goes through Self-Attention → the Softmax normalizes each row, and A ≠ Aᵀ.</p></article>"
    [sentence] = sentences_of(sample)
    assert miscapitalised(sentence) == ["Token", "Self-Attention", "Softmax"]
    assert symbols_in_sentence(sentence) == ["→", "≠"]
    assert wrong_spellings(sentence) == ["normaliz"]


def test_formulas_and_code_are_not_running_text() -> None:
    sample = '<article><p>We compute <span class="arithmatex">\\(A_{i,j} \\neq A_{j,i}\\)</span> with <code>Softmax → x</code>.</p></article>'
    assert sentences_of(sample) == ["We compute with ."]


def test_terms_are_lower_case_in_the_middle_of_a_sentence(english_pages: dict[str, list[str]]) -> None:
    found = {source: hits for source, sentences in english_pages.items() if (hits := [(s[:80], miscapitalised(s)) for s in sentences if miscapitalised(s)])}
    assert not found, f"capitalised terms in the middle of a sentence: {found}"


def test_query_key_and_value_are_capitalised_where_they_name_a_tokens_role(english_pages: dict[str, list[str]]) -> None:
    found = {source: hits for source, sentences in english_pages.items() if source not in ROLES_NOT_YET_CHECKED
             and (hits := [(s[:100], lower_case_roles(s)) for s in sentences if lower_case_roles(s)])}
    assert not found, f"a token's Query, Key or Value in lower case: {found}"


def test_no_arrows_or_not_equal_signs_in_sentences(english_pages: dict[str, list[str]]) -> None:
    found = {source: hits for source, sentences in english_pages.items() if (hits := [s[:100] for s in sentences if symbols_in_sentence(s)])}
    assert not found, f"write the word, not the symbol: {found}"


@pytest.mark.parametrize("source", nav_sources())
def test_no_wrong_spellings(site: Path, source: str) -> None:
    text = built_page(site, source, "en").select_one("article").get_text(" ")
    assert not wrong_spellings(text), f"{source}: {wrong_spellings(text)}"


def test_scaled_dot_product_attention_is_named_where_the_formula_is_introduced(english_pages: dict[str, list[str]]) -> None:
    assert any("scaled dot-product attention" in sentence for sentence in english_pages["intuition.md"])


def test_english_step_names_follow_the_style_sheet() -> None:
    for old in ('"Step 3: scaling"', '"Step 4: softmax"'):
        assert old not in source("en", "complexity.md")
    assert not any("Steps 2 to 4: scores, scaling, softmax" in cell for cell in notebook_cells("en"))
