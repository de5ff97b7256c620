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
