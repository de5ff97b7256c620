"""The page “Q、K、V 的直觉理解 / Q, K and V: the intuition”: exercise 1's sentences hold for its numbers."""

from __future__ import annotations

import numpy as np
import pytest

from qkv_site.content.claims import ClaimError
from qkv_site.pages import intuition


def test_a_query_only_a_little_larger_is_not_almost_v1(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intuition, "QUERIES", np.array([[1.0, 0.0], [2.0, 0.0]]))
    with pytest.raises(ClaimError, match=r"intuition.md: .*almost exactly v1"):
        intuition._lookups()


def test_values_outside_the_weighted_average_stop_exercise_2(monkeypatch: pytest.MonkeyPatch) -> None:
    def shifted(*arguments, **options):
        output, weights = real(*arguments, **options)
        return output + 100.0, weights  # an output no weighted average of the values gives

    real = intuition.self_attention
    monkeypatch.setattr(intuition, "self_attention", shifted)
    with pytest.raises(ClaimError, match=r"intuition.md: .*weighted average"):
        intuition._weighted_average()
