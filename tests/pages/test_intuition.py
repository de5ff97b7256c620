"""The page “Q、K、V 的直觉理解 / Q, K and V: the intuition”: exercise 1's sentences hold for its numbers, and its
programs compute the values its prose prints."""

from __future__ import annotations

import numpy as np
import pytest
from page_sources import DOCS_SRC, run_program

from qkv_site.pages import intuition
from qkv_site.project import Project
from qkv_site.values.claims import ClaimError


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


# The programs the page shows ----------------------------------------------------------------------


def test_intuition_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv_site.pages.intuition import values
    from qkv_site.values.formatting import vector

    lookups = values(project)["lookups"]
    exercise_1, printed = run_program(DOCS_SRC / "intuition" / "exercise_1.py")
    assert [row.query for row in lookups] == [vector(q) for q in exercise_1["queries"]]
    assert [row.weights for row in lookups] == [vector(w, 4) for w in exercise_1["weights"]]
    assert [row.output for row in lookups] == [vector(o) for o in exercise_1["output"]]
    assert "e-0" not in printed, "the weights print as decimals, as the table under them does"
    _, printed = run_program(DOCS_SRC / "intuition" / "exercise_2.py")
    checks = printed.split()
    assert len(checks) == 4 and set(checks) == {"True"}, f"exercise 2 checks what the prose says of the output: {printed}"
