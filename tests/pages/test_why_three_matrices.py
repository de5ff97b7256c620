"""The page “为什么要分三个矩阵 Q、K、V？”: its values stop the build when the data no longer support a sentence."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from qkv.examples import WorkedExample, cat_sat_on_mat, worked_example
from qkv_site.content.claims import ClaimError
from qkv_site.pages import why_three_matrices
from qkv_site.project import Project


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
