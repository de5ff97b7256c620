"""The page “为什么要分三个矩阵 Q、K、V？”: its values stop the build when the data no longer support a sentence,
its programs compute the values its prose prints, exercise 1 rests on what the page shows, the heading “an
information-theoretic view” carries a sourced note, and the English keeps the article's claims as strong as they are."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from page_sources import DOCS_SRC, note, run_program, source
from repository import LANGUAGES, ROOT

from qkv import scaled_dot_product_attention
from qkv.examples import WorkedExample, cat_sat_on_mat, worked_example
from qkv_site.pages import why_three_matrices
from qkv_site.project import Project
from qkv_site.values.claims import ClaimError


@pytest.fixture(autouse=True)
def fresh_values() -> Iterator[None]:
    why_three_matrices.values.cache_clear()  # values() is cached: compute again from the changed data
    yield
    why_three_matrices.values.cache_clear()


def test_the_values_hold_on_the_page_s_own_data(project: Project) -> None:
    shown = why_three_matrices.values(project)
    assert shown["exercise_3"]["own"] is True and shown["projected"][0] == max(shown["projected"], key=lambda p: int(p[:-1]))


def test_the_projection_sentence_fails_when_sit_no_longer_finds_its_subject(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    tied = replace(cat_sat_on_mat(), w_q=cat_sat_on_mat().w_k)  # W_Q = W_K: 坐在 attends most to itself
    monkeypatch.setattr(why_three_matrices, "cat_sat_on_mat", lambda: tied)
    with pytest.raises(ClaimError, match=r"why-three-matrices\.md: .*most of the attention of 坐在 lands on 猫"):
        why_three_matrices.values(project)


def test_exercise_1_fails_when_i_and_love_differ_in_length(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    longer_love = worked_example(x=[[1, 0, 1, 0], [0, 1, 1, 1]])

    def changed(**kwargs: Any) -> WorkedExample:
        return worked_example(**kwargs) if kwargs else longer_love

    monkeypatch.setattr(why_three_matrices, "worked_example", changed)
    with pytest.raises(ClaimError, match=r"why-three-matrices\.md: .*the same length"):
        why_three_matrices.values(project)


def test_exercise_3_fails_when_the_two_keys_differ_in_length(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    def changed(**kwargs: Any) -> WorkedExample:
        w_k = [[1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 1, 1]]  # the second key becomes longer
        return worked_example(**{**kwargs, "w_k": w_k, **({"w_q": w_k} if "w_q" in kwargs else {})})

    monkeypatch.setattr(why_three_matrices, "worked_example", changed)
    with pytest.raises(ClaimError, match=r"why-three-matrices\.md: .*the two keys have the same length"):
        why_three_matrices.values(project)


def test_the_tied_scores_are_positive_semi_definite_and_a_matrix_that_is_not_stops_the_note(
        project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    tied = worked_example(w_q=worked_example().w_k)
    diagonal = np.diag(tied.scores)
    assert np.all(tied.scores <= np.sqrt(np.outer(diagonal, diagonal)) + 1e-12)

    class NotSemiDefinite:  # the tied example with symmetric scores that no Q·Qᵀ can have
        def __init__(self, example: WorkedExample) -> None:
            self.x, self.w_k, self.weights, self.tokens = example.x, example.w_k, example.weights, example.tokens
            self.scores = np.array([[1.0, 3.0], [3.0, 1.0]])

    def changed(**kwargs: Any) -> Any:
        example = worked_example(**kwargs)
        return NotSemiDefinite(example) if kwargs else example

    monkeypatch.setattr(why_three_matrices, "worked_example", changed)
    with pytest.raises(ClaimError, match=r"why-three-matrices\.md: .*positive semi-definite"):
        why_three_matrices.values(project)


# The programs the page shows ----------------------------------------------------------------------


def test_why_three_matrices_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv_site.pages.why_three_matrices import values
    from qkv_site.values.formatting import bmatrix, percent, vector

    shown = values(project)
    page = DOCS_SRC / "why-three-matrices"
    how, _ = run_program(page / "how_computed.py")
    cat, sit = how["cat"], how["sit"]
    assert [t["token"] for t in shown["tokens"]] == list(cat.tokens)
    assert shown["unprojected"] == [percent(w) for w in how["unprojected"][sit]]
    assert shown["projected"] == [percent(w) for w in cat.weights[sit]]
    exercise_1, _ = run_program(page / "exercise_1.py")
    x, counter, ex1 = exercise_1["x"], exercise_1["weights"], shown["exercise_1"]
    assert (ex1["xxt"], ex1["squared_norms"]) == (bmatrix(x @ x.T), vector((x**2).sum(axis=1)))
    assert ex1["weights"] == bmatrix(exercise_1["unprojected"])
    assert (ex1["counter_x"], ex1["counter_weights"]) == (bmatrix(exercise_1["short_long"]), bmatrix(counter))
    assert (ex1["counter_own"], ex1["counter_other"]) == (percent(counter[0, 0]), percent(counter[0, 1]))
    exercise_2, printed = run_program(page / "exercise_2.py")
    ex2 = shown["exercise_2"]
    holds, rank_line, sizes = printed.splitlines()[-3:]
    (rank, d_k), (separate, one, times) = rank_line.split(), sizes.split()
    assert ex2["merged"] == bmatrix(exercise_2["merged"]) and holds == "True"  # the page says the identity holds
    assert (ex2["rank"], ex2["d_k"]) == (rank, d_k)
    assert (ex2["separate"], ex2["one"], ex2["times"]) == (f"{int(separate):,}", f"{int(one):,}", times)
    exercise_3, printed = run_program(page / "exercise_3.py")
    ex3 = shown["exercise_3"]
    assert (ex3["scores"], ex3["weights"]) == (bmatrix(exercise_3["tied"].scores), bmatrix(exercise_3["tied"].weights))
    assert float(ex3["scores_asymmetry"]) == float(printed.splitlines()[-2])
    assert str(ex3["own"]) == printed.splitlines()[-1]  # the flag that picks the page's sentence


# “An information-theoretic view” ------------------------------------------------------------------


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


# Exercise 1, and the English of the article's claims ----------------------------------------------


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


def test_the_english_translates_the_article_s_claims_without_softening_them() -> None:
    three = source("en", "why-three-matrices.md")
    assert "near-synonyms" not in three and "its synonyms “趴” and “躺”" in three
    assert "has absorbed some of the meaning" not in source("en", "motivation.md")
