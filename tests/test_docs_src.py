"""The programs the pages show (docs_src/<page>/<name>.py): each runs, each is shown by both languages,
and what it computes agrees with the named values the page's prose prints (qkv_site.pages)."""

from __future__ import annotations

import contextlib
import io
import re
import runpy
from pathlib import Path
from typing import Any

import pytest

from conftest import DOCS, LANGUAGES, ROOT

DOCS_SRC = ROOT / "docs_src"
PROGRAMS = sorted(DOCS_SRC.rglob("*.py"))
INCLUDE = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$', re.MULTILINE)


def run(program: Path) -> tuple[dict[str, Any], str]:
    """Run a program as the page does; return its variables and what it printed."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        variables = runpy.run_path(str(program), run_name="__main__")
    return variables, printed.getvalue()


def included(lang: str) -> set[str]:
    return {name for page in (DOCS / lang).glob("*.md") for name in INCLUDE.findall(page.read_text(encoding="utf-8"))}


def test_there_are_programs() -> None:
    assert len(PROGRAMS) >= 4


@pytest.mark.parametrize("program", PROGRAMS, ids=[str(p.relative_to(DOCS_SRC)) for p in PROGRAMS])
def test_each_program_runs_and_prints(program: Path) -> None:
    _, printed = run(program)
    assert printed.strip(), f"{program.relative_to(ROOT)} prints nothing: the page would show an empty result"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_both_languages_show_every_program_and_only_existing_ones(lang: str) -> None:
    names = {str(p.relative_to(DOCS_SRC)) for p in PROGRAMS}
    assert included(lang) == names, f"docs/{lang}: shown {sorted(included(lang))}, in docs_src {sorted(names)}"


def test_complexity_programs_agree_with_the_values_the_prose_prints() -> None:
    from qkv_site.pages.complexity import values

    shown = values()
    exercise_2, _ = run(DOCS_SRC / "complexity" / "exercise_2.py")
    assert f"{exercise_2['n']:,}" == shown["crossover"]  # counted term by term vs qkv.complexity.crossover_length
    assert f"{exercise_2['bound']:.1f}" == shown["bound"]
    _, printed = run(DOCS_SRC / "complexity" / "exercise_1.py")
    assert [shown["long_fp16"], shown["long_fp32"], shown["long_model"]] == re.findall(r"= (\S+ \w?i?B)$", printed, re.MULTILINE)
    _, printed = run(DOCS_SRC / "complexity" / "exercise_3.py")
    assert f"× {shown['doubled_ratio']}" in printed and shown["doubled_total"] in printed


def test_worked_example_programs_agree_with_the_values_the_prose_prints() -> None:
    import numpy as np

    from qkv import softmax
    from qkv_site.formatting import bmatrix, percent, vector
    from qkv_site.pages.worked_example import values

    shown = values()
    folder = DOCS_SRC / "worked-example"
    variables, printed = run(folder / "input.py")
    assert variables["example"].tokens == shown["tokens"] and str(variables["example"].x) in printed
    assert bmatrix(variables["example"].x) == shown["x"] and vector(variables["example"].x[0]) == shown["x_rows"][0]
    step_1, _ = run(folder / "step_1.py")  # qkv.project vs the WorkedExample's properties
    assert [bmatrix(step_1[name]) for name in "qkv"] == [shown["q"], shown["k"], shown["v"]]
    step_2, printed = run(folder / "step_2.py")
    assert bmatrix(step_2["scores"]) == shown["scores"] and str(step_2["scores"]) in printed
    step_3, _ = run(folder / "step_3.py")
    assert bmatrix(step_3["scaled"]) == shown["scaled_scores"]
    step_4, printed = run(folder / "step_4.py")
    assert bmatrix(step_4["weights"]) == shown["weights"] and printed.splitlines()[-1] == "[1. 1.]"
    assert [step.weight for step in shown["walk"].steps] == [f"{w:.2f}" for w in step_4["weights"][0]]  # by hand vs exact
    percents = [[percent(w) for w in row] for row in step_4["weights"]]
    assert [[cell.percent for cell in row.cells] for row in shown["shares"]] == percents
    for name in ("step_5.py", "try_it.py"):  # try_it multiplies X by the weights itself
        program, printed = run(folder / name)
        assert bmatrix(program["output"]) == shown["output"] and str(program["output"].round(2)) in printed, name
        assert [row.output for row in shown["shares"]] == [vector(row) for row in program["output"]], name

    exercise_1, printed = run(folder / "exercise_1.py")
    wider, example = exercise_1["wider"], exercise_1["example"]
    assert printed.startswith(f"d_k = {shown['d_k']} -> {shown['exercise_1']['d_k']}\n")
    assert [bmatrix(wider.scores), bmatrix(wider.scaled_scores), bmatrix(wider.weights)] == [
        shown["exercise_1"][name] for name in ("scores", "scaled", "weights")]
    assert [percent(example.weights[0, 0]), percent(wider.weights[0, 0])] == [shown["exercise_1"][n] for n in ("before", "after")]
    exercise_2, printed = run(folder / "exercise_2.py")
    assert bmatrix(exercise_2["masked_weights"]) == shown["exercise_2"]["weights"]
    assert bmatrix(exercise_2["masked_output"]) == shown["exercise_2"]["output"]
    assert printed.splitlines()[-1] == "True"  # the page says the row of "love" is unchanged
    _, printed = run(folder / "exercise_3.py")
    assert printed.splitlines() == ["True", str(softmax(np.array([1.0, 0.0])).round(2))]  # the page: as softmax([1, 0])
    exercise_4, printed = run(folder / "exercise_4.py")
    changed = exercise_4["changed"]  # the program types the edited X; the values edit one cell of X
    assert vector(changed.x[0]) == shown["exercise_4"]["x_row"]
    matrices = [bmatrix(changed.q), bmatrix(changed.k), bmatrix(changed.weights)]
    assert matrices == [shown["exercise_4"][name] for name in ("q", "k", "weights")]
    rows = shown["exercise_4"]["attention_to_first"]
    assert [row.after for row in rows] == [percent(w) for w in changed.weights[:, 0]]
    assert [row.before for row in rows] == [percent(w) for w in exercise_4["example"].weights[:, 0]]


@pytest.mark.parametrize("program", PROGRAMS, ids=[str(p.relative_to(DOCS_SRC)) for p in PROGRAMS])
def test_the_page_shows_what_the_program_prints_when_run(program: Path) -> None:
    # The build runs a program through markdown-exec, whose print() writes its arguments joined by
    # spaces and ignores sep= and file=: the page would show other lines than `python program.py`.
    from qkv_site.build.compat import MARKDOWN_EXEC_RUN

    _, printed = run(program)
    assert MARKDOWN_EXEC_RUN.resolve()(program.read_text(encoding="utf-8")) == printed, program.relative_to(ROOT)
