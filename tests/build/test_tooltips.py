"""Glossary tooltips: whole terms in running text, as a reader meets them; never in headings, code or formulas."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from site_pages import built_page

from qkv_site.builder.tooltips import add_tooltips
from qkv_site.glossary import TERMS


def tooltipped(html: str) -> list[str]:
    return [abbr.get_text() for abbr in BeautifulSoup(html, "html.parser").find_all("abbr")]


def test_lower_case_and_plural_forms_get_a_tooltip() -> None:
    html = add_tooltips("<p>Self-attention lets every token see the other tokens; softmax and the KV cache too.</p>", "en")
    assert tooltipped(html) == ["Self-attention", "token", "tokens", "softmax", "KV cache"]


def test_role_names_only_when_capitalised() -> None:
    html = add_tooltips("<p>The Key of 猫 answers the Query of 坐; the key idea has a value.</p>", "en")
    assert tooltipped(html) == ["Key", "Query"]


def test_never_inside_words_headings_code_links_or_formulas() -> None:
    html = add_tooltips(
        '<h2 id="k">Key insight</h2><p>Keyboards, tokenizer, <code>softmax</code>, <a href="#">self-attention</a>, '
        '<span class="arithmatex">\\(\\text{softmax}\\)</span>, <abbr title="x">Token</abbr>.</p>'
        '<div class="admonition note"><p class="admonition-title">Softmax alone</p></div><details><summary>Token</summary></details>'
        '<div class="clipboard-copy-txt" id="cell-1">from qkv import softmax</div>',
        "en",
    )
    assert tooltipped(html) == ["Token"]  # only the abbr that was already there


def test_never_inside_tex_left_in_plain_text_for_mathjax() -> None:
    html = add_tooltips("<p>$$\\text{softmax}(x)$$ and $\\text{Token}$ and \\(\\text{softmax}\\), then softmax.</p>", "en")
    assert tooltipped(html) == ["softmax"]
    assert "$$\\text{softmax}(x)$$" in html


def test_chinese_pages_get_chinese_tooltips_even_without_a_space() -> None:
    html = add_tooltips("<p>每个Token都经过 Softmax。</p>", "zh")
    titles = [abbr["title"] for abbr in BeautifulSoup(html, "html.parser").find_all("abbr")]
    assert titles == [f"{TERMS[6].zh} — {TERMS[6].zh_meaning}", f"{TERMS[3].zh} — {TERMS[3].zh_meaning}"]


def test_the_rest_of_the_page_is_left_byte_for_byte() -> None:
    page = '<p class="x">a &amp; b<br/><img src="a.svg" alt="Token"></p><!-- Token --><pre><code>Token</code></pre>'
    assert add_tooltips(page, "en") == page


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_built_pages_have_tooltips_in_sentences_and_none_in_headings(site: Path, lang: str) -> None:
    soup = built_page(site, "intuition.md", lang).select_one("article")
    assert soup.select("p abbr[title], li abbr[title]"), "no tooltip in the running text"
    assert not soup.select("h1 abbr, h2 abbr, h3 abbr, code abbr"), "a tooltip in a heading or in code"
    heading = soup.find(id="same-input")
    assert heading is not None and re.search(r"\bKey\b|关键", heading.get_text())
