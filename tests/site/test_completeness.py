"""The Chinese pages carry the whole article: its headings, its display formulas and its sentences, and the built
pages print the article's sentences without unmarked additions."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from article_support import TEX_WORD, article_text, squeeze
from bs4 import BeautifulSoup
from page_sources import built_article
from site_pages import built_path, formula_tex, nav_sources

# The article is plain text; these are its headings, in its order (each is checked to be a line of it).
HEADINGS = [
    "Transformer 原理（二）：Self-Attention 深度拆解 —— Q K V 的前世今生",
    "为什么需要 Self-Attention？",
    "Q、K、V 的直觉理解",
    "搜索引擎类比",
    "关键洞察：Q、K、V 来自同一个输入",
    "逐步计算：一个完整的例子",
    "输入",
    "第一步：生成 Q、K、V",
    "第二步：计算注意力分数（Q · K^T）",
    "第三步：缩放（除以 $\\sqrt{d_k}$）",
    "第四步：Softmax 归一化",
    "第五步：加权求和（乘以 V）",
    "总结：Self-Attention 的五步计算流程",
    "📌 深入理解：为什么要分三个矩阵 Q、K、V？",
    "维度一：数据库检索类比（功能分工）",
    "维度二：语义不对称性（中文例子）",
    "维度三：子空间投影（信息论视角）",
    "📌 深入理解：缩放因子为什么是 $\\sqrt{d_k}$？",
    "问题设定",
    "推导点积的方差",
    "结论",
    "三种缩放策略的对比",
    "📌 深入理解：Attention 权重矩阵是对称的吗？",
    "📌 深入理解：Self-Attention vs Cross-Attention",
    "翻译场景：英→中",
    "对比表",
    "为什么需要 Cross-Attention？",
    "📌 深入理解：Attention 的复杂度与瓶颈",
    "复杂度分析",
    "优化方案预览",
    "小结",
]

# Sentences the site deliberately words differently, each for a reason given on the page itself.
CORRECTED = {
    "同样的方式计算K和V用不同的WKWV矩阵这里省略具体数字": "the page gives W_K and W_V in full",
    "假设最终得到": "the page shows K and V computed from W_K and W_V",
    "当上下文长度从512增长到128K注意力矩阵的显存从05MB暴增到31GB这就是长上下文的核心挑战": "binary units (editor's note)",
}


PREFORMATTED = re.compile(r"^\s|\t|\S  +\S|[│├└▼]")


def article_tex(formula) -> str:
    """The TeX of a typeset formula: of the TeX that typeset to the same MathML (``d_k``, ``d_{k}``), the one
    the article writes, if it writes one."""
    candidates = formula_tex(formula)
    return next((tex for tex in candidates if re.sub(r"\s+", "", tex) in unspaced_article()), candidates[0])


@cache
def unspaced_article() -> str:
    return re.sub(r"\s+", "", article_text())


@pytest.fixture(scope="module")
def zh_pages(site: Path) -> list[BeautifulSoup]:
    """The Chinese articles, each typeset formula read back as the TeX it was made from (the build's formula
    cache keeps it; the pages do not), so that formulas compare with the article's TeX."""
    pages = []
    for source in nav_sources():
        page = BeautifulSoup(built_path(site, source, "zh").read_text(encoding="utf-8"), "html.parser").select_one("article")
        for formula in page.select("mjx-container"):
            formula.replace_with(article_tex(formula))
        pages.append(page)
    return pages


def test_the_heading_list_is_the_article_s() -> None:
    lines = {line.strip() for line in article_text().splitlines()}
    missing = [heading for heading in HEADINGS if heading not in lines]
    assert not missing, f"not headings of the article: {missing}"


def test_every_heading_of_the_article_is_a_heading_on_the_chinese_pages(zh_pages: list[BeautifulSoup]) -> None:
    on_site = {squeeze(h.get_text()) for page in zh_pages for h in page.find_all(re.compile("^h[1-6]$"))}
    missing = [heading for heading in HEADINGS if squeeze(heading) not in on_site]
    assert not missing, f"article headings missing from the Chinese pages: {missing}"


def test_every_display_formula_of_the_article_is_on_the_chinese_pages(zh_pages: list[BeautifulSoup]) -> None:
    formulas = re.findall(r"\$\$(.+?)\$\$", article_text(), flags=re.DOTALL)
    assert len(formulas) == 19, "the article has 19 display formulas"
    on_site = {re.sub(r"\s+", "", node.get_text()) for page in zh_pages for node in page.select("div.arithmatex")}
    missing = [formula for formula in formulas if re.sub(r"\s+", "", formula) not in on_site]
    assert not missing, "display formulas of the article missing from the Chinese pages:\n" + "\n".join(missing)


def test_every_sentence_of_the_article_is_on_the_chinese_pages(zh_pages: list[BeautifulSoup]) -> None:
    # TeX control words (\\approx, \\text) are notation, not words: compare without them.
    site_text = squeeze(TEX_WORD.sub("", " ".join(page.get_text(" ") for page in zh_pages)))
    prose = re.sub(r"\$\$.+?\$\$", " ", article_text(), flags=re.DOTALL)
    # The article's plain-text diagrams and tab-separated tables are tables and figures on the site
    # (their content is checked where it is generated); compare its running text.
    prose = "\n".join(line for line in prose.splitlines() if not PREFORMATTED.search(line))
    prose = re.sub(r"^\s*(\d+\.|•)\s+", "", prose, flags=re.MULTILINE)  # list markers are Markdown's now
    sentences = [squeeze(TEX_WORD.sub("", s)) for s in re.split(r"[。！？\n：]", prose)]
    stale = [s for s in CORRECTED if s not in sentences or s in site_text]
    assert not stale, f"these corrections are not (or no longer) needed: {stale}"
    missing = [s for s in sentences if len(s) >= 6 and s not in site_text and s not in CORRECTED]
    assert not missing, f"{len(missing)} sentences of the article are not on the Chinese pages, e.g.:\n" + "\n".join(missing)


# The article's sentences as the built pages print them --------------------------------------------


def plain(node) -> str:
    """A paragraph's letters and digits, each formula read back as its TeX without control words."""
    node = BeautifulSoup(str(node), "html.parser")
    for formula in node.select("mjx-container"):
        formula.replace_with(article_tex(formula))
    return squeeze(TEX_WORD.sub("", node.get_text()))


def paragraph_starting(page: BeautifulSoup, start: str) -> str:
    for node in page.select("p, li"):
        if plain(node).startswith(squeeze(start)):
            return plain(node)
    raise AssertionError(f"no paragraph starts with {start!r}")


def test_the_article_s_sentences_carry_no_unmarked_additions(site: Path) -> None:
    kept = {  # page: (how the paragraph starts, the article's whole sentence)
        "intuition.md": ("Self-Attention 的核心公式是", "Self-Attention 的核心公式是："),
        "summary.md": ("注意力矩阵不对称", "注意力矩阵不对称：因为 $W_Q \\neq W_K$，自然语言关系是有向图。"),
        "worked-example.md": ("用第一行", "用第一行 $[1.15, 0.58]$ 走一遍："),
    }
    article_words = squeeze(TEX_WORD.sub("", article_text()))
    for page, (start, sentence) in kept.items():
        expected = squeeze(TEX_WORD.sub("", sentence))
        assert expected in article_words, f"not the article's sentence: {sentence}"
        found = paragraph_starting(built_article(site, page, "zh"), start)
        assert found == expected, f"zh/{page}: the article's sentence gained words: {found}"
    assert "128K" in paragraph_starting(built_article(site, "complexity.md", "zh"), "当上下文长度从"), "the article writes 128K"
    english = {
        "intuition.md": ("The core formula of self-attention", "The core formula of self-attention is:"),
        "summary.md": ("The attention matrix is not symmetric", None),
        "worked-example.md": ("Let's walk through the first row", None),
    }
    for page, (start, whole) in english.items():
        found = paragraph_starting(built_article(site, page, "en"), start)
        assert whole is None or found == squeeze(whole), f"en/{page}: {found}"
        assert not any(word in found for word in ("rounded", "callsit", "softmax")), f"en/{page}: {found}"
    assert "128K" in paragraph_starting(built_article(site, "complexity.md", "en"), "As the context length grows")
