"""Sentences a careful reader checked against the numbers and the sources, second pass: each claim here
is recomputed with `qkv`, each note is on both languages' pages, and each typed number that could go
stale is now a named value."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import DOCS

from qkv import softmax
from qkv.examples import worked_example
from qkv_site.content.claims import ClaimError
from qkv_site.content.formatting import percent
from qkv_site.project import Project

LANGUAGES = ("zh", "en")


def source(lang: str, page: str) -> str:
    return (DOCS / lang / page).read_text(encoding="utf-8")


def note(lang: str, page: str, anchor: str) -> str:
    """The text of the editor's note after `<a id="anchor">` (up to the next heading or anchor)."""
    text = source(lang, page)
    start = text.index(f'<a id="{anchor}"></a>')
    rest = text[start + 1:]
    end = min((m.start() for m in re.finditer(r"^(#|<a id=)", rest, re.MULTILINE)), default=len(rest))
    return rest[:end]


# The worked example: “the exponential amplifies differences” ------------------------------------


def test_dividing_by_the_sum_gives_i_more_than_softmax_on_the_pages_row(project: Project) -> None:
    example = worked_example()
    scaled, weights = example.scaled_scores, example.weights
    by_sum = scaled / scaled.sum(axis=-1, keepdims=True)
    assert by_sum[0, 0] > weights[0, 0], "on the row of “I”, dividing by the sum is the more decided of the two"
    assert weights[1, 1] > by_sum[1, 1], "on the row of “love”, softmax is the more decided"
    assert softmax(example.scores[0])[0] > by_sum[0, 0], "unscaled, softmax is the more decided"
    unscaled_by_sum = example.scores / example.scores.sum(axis=-1, keepdims=True)
    assert np.allclose(by_sum, unscaled_by_sum), "dividing by the sum ignores the scale"

    from qkv_site.pages.worked_example import values

    shown = values(project)["exp_versus_sum"]
    assert (shown["first_by_sum"], shown["first_softmax"]) == (percent(by_sum[0, 0]), percent(weights[0, 0])) == ("67%", "64%")
    assert (shown["last_by_sum"], shown["last_softmax"]) == (percent(by_sum[1, 1]), percent(weights[1, 1]))
    assert shown["raw_softmax"] == percent(softmax(example.scores[0])[0])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_amplifying_claim_carries_a_note_with_the_numbers_as_named_values(lang: str) -> None:
    text = note(lang, "worked-example.md", "note-exp-versus-sum")
    for name in ("first_by_sum", "first_softmax", "last_by_sum", "last_softmax", "raw_softmax", "first_scores"):
        assert f"{{{{ exp_versus_sum.{name} }}}}" in text, f"{lang}: the note should print {name}"
    assert "67%" not in text and "64%" not in text, f"{lang}: the note's percentages must come from the data"
    assert "6.2.2.3" in text, f"{lang}: the note cites its source"
    # the article's sentence stays on the Chinese page, with the note right after it
    article = "指数函数会放大差异"
    if lang == "zh":
        page = source(lang, "worked-example.md")
        assert page.index(article) < page.index('<a id="note-exp-versus-sum"></a>')


def test_the_note_stops_the_build_when_softmax_becomes_the_more_decided_on_the_row_of_i() -> None:
    from qkv_site.pages.worked_example import values_of

    example = worked_example()
    louder = worked_example(w_q=5 * example.w_q)  # scores five times larger: softmax is now far more decided
    with pytest.raises(ClaimError, match="dividing by the sum gives “I” more than softmax"):
        values_of(louder)


# Complexity: numbers in the prose are the page's named values ----------------------------------


TYPED = {
    "zh": ("$n = 4096$、$d = 512$", "$n = 4{,}096$、$d = 512$", "$d = 512$ 时", "从 4,096 翻倍到 8,192",
           "标出 512、4096", "$128{,}000 \\times 128{,}000$", "$n = 32{,}768$", "32 层、每层 32 个头"),
    "en": ("$n = 4096$ and $d = 512$", "$n = 4{,}096$ and $d = 512$", "For $d = 512$", "With $d = 512$",
           "from 4,096 to 8,192", "points 512, 4096", "$128{,}000 \\times 128{,}000$", "$n = 32{,}768$",
           "32 layers of 32 heads"),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_complexity_prose_names_its_numbers_instead_of_typing_them(lang: str) -> None:
    text = source(lang, "complexity.md")
    for typed in TYPED[lang]:
        assert typed not in text, f"{lang}/complexity.md types {typed!r}: it would not follow the values"
    for name in ("{{ n_plain }}", "{{ doubled_n }}", "{{ memory_last_tex }}", "memory_points"):
        assert name in text, f"{lang}/complexity.md should use {name}"


def test_the_complexity_values_are_the_numbers_the_prose_used_to_type(project: Project) -> None:
    from qkv_site.pages.complexity import values

    shown = values(project)
    assert (shown["n_plain"], shown["n_tex"], shown["d"], shown["doubled_n"]) == ("4096", "4{,}096", "512", "8,192")
    assert shown["memory_points"] == ["512", "4096", "32768", "128000"] and shown["memory_last_tex"] == "128{,}000"
    assert (shown["long_tex"], shown["layers"], shown["heads"]) == ("32{,}768", "32", "32")


def test_four_rows_and_a_little_less_than_fourfold_are_checked(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from qkv_site.pages import complexity

    original = complexity.memory_table
    monkeypatch.setattr(complexity, "memory_table", lambda dtype: original(dtype=dtype)[:3])
    complexity.values.cache_clear()
    with pytest.raises(ClaimError, match="four rows"):
        complexity.values(project)
    monkeypatch.undo()
    monkeypatch.setattr(complexity, "total_multiplications", lambda n, d: n * n)  # exactly fourfold
    complexity.values.cache_clear()
    with pytest.raises(ClaimError, match="a little less than fourfold"):
        complexity.values(project)
    monkeypatch.undo()
    complexity.values.cache_clear()
    ratio = complexity.total_multiplications(8192, 512) / complexity.total_multiplications(4096, 512)
    assert complexity.values(project)["doubled_ratio"] == f"{ratio:.2f}" and 3 < ratio < 4


# Why three matrices: “an information-theoretic view” ---------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_information_theoretic_heading_carries_a_sourced_note(lang: str) -> None:
    page = source(lang, "why-three-matrices.md")
    heading = page.index("{ #subspace-projection }")
    anchor = page.index('<a id="note-not-information-theory"></a>')
    assert heading < anchor < page.index("{ #exercises }")
    text = note(lang, "why-three-matrices.md", "note-not-information-theory")
    assert "Cover" in text and "P^2 = P" in text and "Strang" in text
    if lang == "zh":
        assert "（信息论视角）" in page, "the article's heading stays as it is"


# Why √d_k: the saturation figure's caption and alt text ------------------------------------------


def _figure_changed(curve: str, strategy: str, change):  # type: ignore[no-untyped-def]
    """scaling_study, with one curve of one strategy changed in the figure's experiment only."""
    from dataclasses import replace

    from qkv.analysis import scaling_study
    from qkv_site.pages.why_sqrt_dk import D_KS_FIGURE

    def changed(d_ks, *args, **kwargs):  # type: ignore[no-untyped-def]
        study = scaling_study(d_ks, *args, **kwargs)
        if tuple(d_ks) != D_KS_FIGURE:
            return study
        curves = getattr(study, curve)
        return replace(study, **{curve: {**curves, strategy: change(np.array(curves[strategy]))}})

    return changed


@pytest.mark.parametrize(("curve", "strategy", "change", "sentence"), [
    ("max_weight", "none", lambda c: np.minimum(c, 0.6), "largest weight tends to 1"),
    ("jacobian_norm", "none", lambda c: np.maximum(c, 0.3), "Jacobian collapses towards 0"),
    ("max_weight", "d_k", lambda c: c * 2, "dividing by d_k makes the output uniform"),
    ("max_weight", "sqrt_d_k", lambda c: c * np.linspace(1, 2, len(c)), "only with √d_k do the curves hardly change"),
])
def test_the_saturation_figure_s_description_is_checked(project: Project, monkeypatch: pytest.MonkeyPatch, curve: str, strategy: str,
                                                         change, sentence: str) -> None:  # type: ignore[no-untyped-def]
    from qkv_site.pages import why_sqrt_dk

    why_sqrt_dk.values.cache_clear()
    try:
        why_sqrt_dk.values(project)  # the page's own curves hold
        why_sqrt_dk.values.cache_clear()
        monkeypatch.setattr(why_sqrt_dk, "scaling_study", _figure_changed(curve, strategy, change))
        with pytest.raises(ClaimError, match=re.escape(sentence)):
            why_sqrt_dk.values(project)
    finally:
        monkeypatch.undo()
        why_sqrt_dk.values.cache_clear()


# The playground: “the three presets” ---------------------------------------------------------------


def test_the_count_of_presets_the_page_names_is_checked(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from qkv_site.pages import playground
    from qkv_site.content.playground import presets

    assert len(presets()["presets"]) == 3
    for lang, words in (("zh", "三个预设"), ("en", "the three presets")):
        assert words in source(lang, "playground.md")
    real = presets()
    four = {**real["presets"], "extra": real["presets"]["article"]}  # type: ignore[dict-item]
    monkeypatch.setattr(playground, "presets", lambda: {**real, "presets": four})
    playground.values.cache_clear()
    try:
        with pytest.raises(ClaimError, match="the three presets"):
            playground.values(project)
    finally:
        monkeypatch.undo()
        playground.values.cache_clear()


def test_the_32k_the_exercise_names_is_checked(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from qkv_site.pages import complexity

    monkeypatch.setattr(complexity, "LONG_CONTEXT", 32_000)
    complexity.values.cache_clear()
    try:
        with pytest.raises(ClaimError, match="32K"):
            complexity.values(project)
    finally:
        monkeypatch.undo()
        complexity.values.cache_clear()


# The worked example: the table of step 2 calls its scores “attention” ----------------------------


def test_one_score_two_rows_two_weights(project: Project) -> None:
    example = worked_example()
    assert example.scores[0, 0] == example.scores[1, 0] and example.weights[0, 0] > example.weights[1, 0]
    from qkv_site.pages.worked_example import values

    shown = values(project)["scores_not_weights"]
    assert (shown["own"], shown["other"]) == (percent(example.weights[0, 0]), percent(example.weights[1, 0]))
    for lang in LANGUAGES:
        text = note(lang, "worked-example.md", "note-scores-not-weights")
        assert "{{ scores_not_weights.own }}" in text and "3.2.1" in text and "64%" not in text
        page = source(lang, "worked-example.md")
        assert page.index("{ #step-2 }") < page.index('<a id="note-scores-not-weights"></a>') < page.index("{ #step-3 }")


def test_the_scores_note_stops_the_build_when_the_two_scores_differ() -> None:
    from qkv_site.pages import worked_example as page

    w_q = worked_example().w_q.copy()
    w_q[1] = [0, 0, 1]  # the query of "love" changes, K does not
    changed = worked_example(w_q=w_q)
    assert changed.scores[0, 0] != changed.scores[1, 0]
    with pytest.raises(ClaimError, match="scores-not-weights"):
        page._scores_not_weights(changed)
