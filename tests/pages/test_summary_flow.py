"""The page “总结：五步计算流程 / Summary: the five steps”: what its exercises' prose says of the shapes
and of the rows that change holds for the numbers."""

from __future__ import annotations

import pytest

from qkv_site.content.claims import ClaimError
from qkv_site.pages import summary_flow


def test_an_unchanged_love_stops_exercise_2(monkeypatch: pytest.MonkeyPatch) -> None:
    love = summary_flow.worked_example().x[1].tolist()
    monkeypatch.setattr(summary_flow, "CHANGED_LOVE", love)  # nothing changes: no row to name
    with pytest.raises(ClaimError, match=r"summary-flow.md: .*only the row of love changes"):
        summary_flow._changed()


def test_weights_that_are_not_square_stop_exercise_1(monkeypatch: pytest.MonkeyPatch) -> None:
    softmax = summary_flow.softmax
    monkeypatch.setattr(summary_flow, "softmax", lambda scores: softmax(scores)[:, :-1])
    with pytest.raises(ClaimError, match=r"summary-flow.md: .*n x n square"):
        summary_flow._shapes()
