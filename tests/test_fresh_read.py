"""Sentences a careful reader checked against the numbers: each claim here is recomputed with `qkv`,
and the wording that once said the opposite stays off the pages."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from bs4 import BeautifulSoup

from article_support import TEX_WORD, article_text, squeeze
from conftest import DOCS, ROOT
from qkv import scaled_dot_product_attention
from qkv.analysis import dot_product_variance, scaling_study
from qkv.examples import cat_sat_on_mat, worked_example
from qkv_site.content.corrections import NOTE_PREFIX
from qkv_site.figures.softmax_saturation import D_KS
from qkv_site.content.formatting import number
from qkv_site.content.playground import presets
from site_pages import built_page, nav_sources

LANGUAGES = ("zh", "en")


def source(lang: str, page: str) -> str:
    return (DOCS / lang / page).read_text(encoding="utf-8")


def article(site: Path, page: str, lang: str) -> BeautifulSoup:
    return built_page(site, page, lang).select_one("article")  # shared: read it, never change it


def notebook_cells(lang: str) -> list[str]:
    notebook = json.loads((DOCS / lang / "notebook.ipynb").read_text(encoding="utf-8"))
    return ["".join(cell["source"]) for cell in notebook["cells"]]


def attention_weights(preset: dict, scale: float | None = None, **changes) -> np.ndarray:
    """The playground's weights for a preset (its math is qkv's, tests/js holds it to that)."""
    tables = {name: np.asarray(changes.get(name, preset[name]), dtype=float) for name in ("x", "w_q", "w_k", "w_v")}
    q, k, v = (tables["x"] @ tables[w] for w in ("w_q", "w_k", "w_v"))
    _, weights = scaled_dot_product_attention(q, k, v, scale=scale)
    return weights


# The playground ---------------------------------------------------------------------------------


def test_the_saturation_advice_saturates_and_all_equal_cells_do_not() -> None:
    article_preset = presets()["presets"]["article"]
    w_q = np.asarray(article_preset["w_q"], dtype=float)
    fives = np.where(w_q == 1, 5.0, w_q)  # "every 1 in W_Q becomes 5, the 0s stay"
    unscaled = attention_weights(article_preset, scale=1.0, w_q=fives)
    assert unscaled[0].argmax() == 0 and unscaled[0, 0] > 0.99, "the row of “I” should put almost all weight on “I”"
    scaled = attention_weights(article_preset, w_q=fives)  # ÷ √d_k
    assert 0.5 < scaled[0, 0] < unscaled[0, 0], "÷ √d_k should flatten the row only a little"
    same = np.full_like(np.asarray(article_preset["x"], dtype=float), 5.0)
    assert np.allclose(attention_weights(article_preset, scale=1.0, x=same), 0.5), "equal cells give even weights"
    for lang, old, new in (("zh", "（比如都改成 5）", "每个 1 都改成 5"), ("en", "(say, all 5s)", "change every 1 in $W_Q$ to 5")):
        text = source(lang, "playground.md")
        assert old not in text and new in text, f"{lang}/playground.md: the saturation advice"


def test_the_no_projection_preset_is_symmetric_until_love_changes() -> None:
    preset = presets()["presets"]["no-projection"]
    weights = attention_weights(preset)
    assert np.allclose(weights, weights.T), "the preset's weights should be exactly symmetric"
    changed = attention_weights(preset, x=[preset["x"][0], [0, 1, 1, 1]])
    assert not np.allclose(changed, changed.T), "the change the page suggests should break the symmetry"
    for lang, old, new in (
        ("zh", "但 Softmax 之后的权重不一定对称", "这个预设的权重也恰好对称"),
        ("en", "the weights after softmax need not be", "In this preset the weights happen to be symmetric too"),
    ):
        text = source(lang, "playground.md")
        assert old not in text and new in text and "$[0, 1, 1, 1]$" in text, f"{lang}/playground.md: the symmetry bullet"


# The notebook -----------------------------------------------------------------------------------


def test_the_notebook_exercise_changes_only_one_dot_product() -> None:
    w_q = worked_example().w_q.copy()
    w_q[0] = [0, 1, 1]
    before, after = worked_example().scores[0], worked_example(w_q=w_q).scores[0]
    assert before[0] == after[0] and before[1] != after[1], "only the dot product with the Key of “love” changes"
    for lang, old in (("zh", "它和两个 Key 的点积也就变了"), ("en", "its dot products with both Keys changed")):
        cells = notebook_cells(lang)
        assert not any(old in cell for cell in cells), f"{lang}/notebook.ipynb still says both dot products change"
        assert any("changed.scores[0]" in cell for cell in cells), f"{lang}/notebook.ipynb: the exercise cell prints the scores"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_notebook_prints_no_space_before_a_closing_bracket(site: Path, lang: str) -> None:
    outputs = " ".join(node.get_text() for node in article(site, "notebook.ipynb", lang).select(".jp-OutputArea"))
    assert "0.64" in outputs, f"{lang}: the notebook's outputs were not found"
    assert not re.search(r"\d [)）]", outputs), f"{lang}: a printed number is followed by a space and a bracket"


# Why three matrices? ----------------------------------------------------------------------------


def test_exercise_1_of_why_three_matrices_rests_on_what_the_page_shows() -> None:
    cat = cat_sat_on_mat()
    _, unprojected = scaled_dot_product_attention(cat.x, cat.x, cat.x, scale=1.0)
    sit = cat.tokens.index("坐在")
    assert unprojected[sit].argmax() == sit, "the exercise says “坐在” attends most to itself without projections"
    for lang, old_question, old_link in (
        ("zh", "“I” 和 “love” 都把最多的注意力放在自己身上", "下一个深度小节的练习"),
        ("en", "“I” and “love” both keep the largest share", "an exercise of the next deep dive"),
    ):
        text = source(lang, "why-three-matrices.md")
        solution = text[text.index("{ #exercise-1 }") : text.index("{ #exercise-2 }")]
        assert old_question not in text and old_link not in text, f"{lang}/why-three-matrices.md: exercise 1 or 3"
        # "No projection" is softmax(XXᵀ)X on this page: unscaled, not softmax(XXᵀ/√d). The code is the program it includes.
        programs = re.findall(r'--8<-- "([^"]+)"', solution)
        assert programs, f"{lang}: exercise 1 shows no program"
        code = "".join((ROOT / "docs_src" / name).read_text(encoding="utf-8") for name in programs)
        assert "self_attention(" not in code and code.count("scale=1.0") == 2, f"{lang}: exercise 1 must not scale"


# Why √d_k? --------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_sqrt_dk_page_quotes_one_draw_and_describes_its_experiments(site: Path, lang: str) -> None:
    page = article(site, "why-sqrt-dk.md", lang)
    text = page.get_text(" ")
    table_draw = dot_product_variance([1, 8, 64, 512], seed=0)
    own_draw = dot_product_variance([64], seed=0)
    quoted, other = number(table_draw.variance[2]), number(own_draw.variance[0])
    assert quoted != other
    exercise = page.select_one("#exercise-1").find_next("details").get_text(" ")
    assert quoted in exercise and other not in exercise, f"{lang}: exercise 1 should quote the table's draw ({quoted})"
    assert quoted in page.select_one("table").get_text(" ")
    for old in ("16 个 Key 和 500 组随机 Query", "16 Key vectors and 500 random Query vectors", "上表的图像版", "The table above as a picture"):
        assert old not in text, f"{lang}: {old!r}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_gradient_note_states_the_figure_s_numbers(site: Path, lang: str) -> None:
    curves = scaling_study(D_KS)
    unscaled, scaled = curves.jacobian_norm["none"], curves.jacobian_norm["sqrt_d_k"]
    above = [i for i in range(len(D_KS)) if unscaled[i] > scaled[i]]
    assert above, "the figure shows the unscaled Jacobian norm above the scaled one at small d_k"
    widest = max(above, key=lambda i: unscaled[i] - scaled[i])
    note = article(site, "why-sqrt-dk.md", lang).select_one("#note-gradient-region").find_next(class_="admonition")
    assert number(unscaled[widest]) in note.get_text() and number(scaled[widest]) in note.get_text()


# Home and corrections: what is computed, and what the pages do to the article's sentences --------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_home_and_corrections_say_which_numbers_are_measured(site: Path, lang: str) -> None:
    home = article(site, "index.md", lang)
    different = home.select_one("#what-is-different").find_next("p")
    assert different.select_one('a[href*="beyond-quadratic"]'), f"{lang}: the home page names the measured page"
    corrections = article(site, "corrections.md", lang).get_text(" ")
    for old in ("每一处都在它所在的页面上用一条", "Each of these places carries an “editor's note”", "每个数字都由 `qkv`", "Every number is computed by"):
        assert old not in corrections, f"{lang}/corrections: {old!r}"


def plain(node) -> str:
    """A paragraph's letters and digits, each formula read back as its TeX without control words."""
    node = BeautifulSoup(str(node), "html.parser")
    for formula in node.select("mjx-container"):
        formula.replace_with(formula.select_one('annotation[encoding="application/x-tex"]').get_text())
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
        found = paragraph_starting(article(site, page, "zh"), start)
        assert found == expected, f"zh/{page}: the article's sentence gained words: {found}"
    assert "128K" in paragraph_starting(article(site, "complexity.md", "zh"), "当上下文长度从"), "the article writes 128K"
    english = {
        "intuition.md": ("The core formula of self-attention", "The core formula of self-attention is:"),
        "summary.md": ("The attention matrix is not symmetric", None),
        "worked-example.md": ("Let's walk through the first row", None),
    }
    for page, (start, whole) in english.items():
        found = paragraph_starting(article(site, page, "en"), start)
        assert whole is None or found == squeeze(whole), f"en/{page}: {found}"
        assert not any(word in found for word in ("rounded", "callsit", "softmax")), f"en/{page}: {found}"
    assert "128K" in paragraph_starting(article(site, "complexity.md", "en"), "As the context length grows")


# Editor's notes on the article's loose claims ----------------------------------------------------

NOTES = {
    "index.md": ["note-self-attention-before-transformer"],
    "motivation.md": ["note-trained-heads"],
    "intuition.md": ["note-soft-search", "note-trainable-parameters"],
    "worked-example.md": ["note-dot-product-length", "note-de-not-in-sentence", "note-dot-product-choice"],
    "why-three-matrices.md": ["note-joint-training", "note-posture-verbs", "note-raw-similarity"],
    "why-sqrt-dk.md": ["note-gradient-region"],
}
UNSOURCED = {"note-de-not-in-sentence"}  # about the article's own example sentence


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("page", list(NOTES))
def test_each_loose_claim_has_its_sourced_note(site: Path, page: str, lang: str) -> None:
    built = article(site, page, lang)
    for anchor in NOTES[page]:
        marker = built.select_one(f"#{anchor}")
        assert marker is not None, f"{lang}/{page}: no anchor {anchor}"
        note = marker.find_next(class_="admonition")
        assert note.select_one(".admonition-title").get_text().startswith(NOTE_PREFIX[lang]), f"{lang}/{page}: {anchor}"
        if anchor not in UNSOURCED:
            assert re.search(r"\b(19|20)\d\d\b", note.get_text()), f"{lang}/{page}: {anchor} cites no source"


def test_the_english_translates_the_article_s_claims_without_softening_them() -> None:
    three = source("en", "why-three-matrices.md")
    assert "near-synonyms" not in three and "its synonyms “趴” and “躺”" in three
    assert "has absorbed some of the meaning" not in source("en", "motivation.md")


# Step names and titles ---------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("page", ["complexity.md", "summary-flow.md"])
def test_no_code_identifier_is_printed_as_a_name(site: Path, page: str, lang: str) -> None:
    items = [li for li in article(site, page, lang).select("li") if li.contents and getattr(li.contents[0], "name", None) == "code"]
    assert not items, f"{lang}/{page}: list items named by code identifiers: {[li.get_text()[:40] for li in items]}"


def test_english_step_names_follow_the_style_sheet() -> None:
    for old in ('"Step 3: scaling"', '"Step 4: softmax"'):
        assert old not in source("en", "complexity.md")
    assert not any("Steps 2 to 4: scores, scaling, softmax" in cell for cell in notebook_cells("en"))


def test_a_page_titled_like_its_heading_in_chinese_is_titled_so_in_english(site: Path) -> None:
    def titles(page: str, lang: str) -> tuple[str, str]:
        soup = built_page(site, page, lang)
        nav_title = soup.title.get_text().rsplit(" - ", 1)[0]
        heading = soup.select_one("article h1").get_text().replace("¶", "").strip()
        return nav_title, heading

    for page in nav_sources():
        zh_title, zh_heading = titles(page, "zh")
        if zh_title == zh_heading:
            en_title, en_heading = titles(page, "en")
            assert en_title == en_heading, f"{page}: the English page has two titles, {en_title!r} and {en_heading!r}"
