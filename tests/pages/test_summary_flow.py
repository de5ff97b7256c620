"""The page “总结：五步计算流程 / Summary: the five steps”: what its exercises' prose says of the shapes
and of the rows that change holds for the numbers, and its programs compute the values its prose prints."""

from __future__ import annotations

import pytest
from page_sources import DOCS_SRC, run_program

from qkv_site.pages import summary_flow
from qkv_site.project import Project
from qkv_site.values.claims import ClaimError


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


# The programs the page shows ----------------------------------------------------------------------


def test_summary_flow_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv_site.pages.summary_flow import values

    shown = values(project)
    exercise_1, printed = run_program(DOCS_SRC / "summary-flow" / "exercise_1.py")
    for name in ("q", "k", "v", "scores", "scaled", "weights", "output"):
        assert shown["shapes"][name] == r" \times ".join(map(str, exercise_1[name].shape)), name
    assert printed.count("\n") == 7  # the seven results of the five steps, one line each
    _, printed = run_program(DOCS_SRC / "summary-flow" / "exercise_2.py")
    lines = dict(line.split(" ", 1) for line in printed.splitlines())
    assert lines.keys() == shown["changed"].keys()
    assert all(lines[name] == repr(tokens) for name, tokens in shown["changed"].items()), printed
