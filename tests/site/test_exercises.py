"""Exercises: every page of the article and every deep dive ends with 2–4, each with a solution, in both languages."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from repository import DOCS

from qkv_site.markdown_source import parse, read

# The pages of the article and the deep dives (plus the page that goes beyond the article).
PAGES = [
    "motivation.md",
    "intuition.md",
    "worked-example.md",
    "summary-flow.md",
    "why-three-matrices.md",
    "why-sqrt-dk.md",
    "asymmetry.md",
    "self-vs-cross.md",
    "learned-attention.md",
    "complexity.md",
    "beyond-quadratic.md",
]
HEADING = {"zh": "## 练习 { #exercises }", "en": "## Exercises { #exercises }"}
SOLUTION = {"zh": '??? success "解答"', "en": '??? success "Solution"'}
MINIMUM_PER_LANGUAGE = 20

EXERCISE = re.compile(r"exercise-\d+")  # the anchor of an exercise's heading (### …)
FORMULA = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.DOTALL)
# What a typed result would look like in a solution's prose: a decimal, a percentage, a size or a
# number of two digits or more. Single digits (step 2, row 1) are references, not results, and so
# are the digits of a name (FP16, W_Q2). A named value (``{{ crossover }}``) is computed, not typed.
TYPED_RESULT = re.compile(r"(?<![A-Za-z_\d])(?:\d+\.\d+|\d+\s*%|\d\s*[KMGT]i?B\b|\d{2,})")
NAMED_VALUE = re.compile(r"\{\{.*?\}\}")


@dataclass(frozen=True)
class Exercise:
    anchor: str
    question: str
    solution: str  # the indented body of the collapsible block, dedented; "" if there is none


def exercises_of(page: Path, lang: str) -> list[Exercise]:
    """The exercises at the end of a page, each with its question and the body of its solution."""
    source = read(page)
    heading = HEADING[lang]
    headings = [h for h in source.headings if h.top_level]
    starts = [h for h in headings if source.lines[h.line - 1] == heading]
    assert len(starts) == 1, f"{page}: expected one heading {heading!r}"
    after = [h for h in headings if h.line > starts[0].line]
    assert all(h.level > 2 for h in after), f"{page}: the exercises must be the last section"
    numbered = [h for h in after if h.level == 3 and h.anchor and EXERCISE.fullmatch(h.anchor)]
    ends = [h.line - 1 for h in numbered[1:]] + [len(source.lines)]
    found = []
    for exercise, end in zip(numbered, ends):
        anchor, body = exercise.anchor, "\n".join(source.lines[exercise.line : end])
        question, _, solution = body.partition(SOLUTION[lang] + "\n")
        lines = solution.splitlines()
        indented = [line[4:] if line.startswith("    ") else line for line in lines if line.startswith("    ") or not line.strip()]
        if lines and any(line.strip() and not line.startswith("    ") for line in lines):
            raise AssertionError(f"{page} #{anchor}: text after the solution block is not part of it")
        found.append(Exercise(anchor, question.strip(), "\n".join(indented).strip()))
    return found


@pytest.fixture(scope="module")
def exercises() -> dict[tuple[str, str], list[Exercise]]:
    return {(lang, page): exercises_of(DOCS / lang / page, lang) for lang in HEADING for page in PAGES}


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("lang", list(HEADING))
def test_every_page_ends_with_two_to_four_numbered_exercises(exercises: dict, lang: str, page: str) -> None:
    anchors = [exercise.anchor for exercise in exercises[lang, page]]
    assert 2 <= len(anchors) <= 4, f"{lang}/{page}: {len(anchors)} exercises"
    assert anchors == [f"exercise-{i}" for i in range(1, len(anchors) + 1)], f"{lang}/{page}: {anchors}"


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("lang", list(HEADING))
def test_every_exercise_has_a_question_and_a_worked_solution(exercises: dict, lang: str, page: str) -> None:
    for exercise in exercises[lang, page]:
        where = f"{lang}/{page} #{exercise.anchor}"
        assert exercise.question, f"{where}: no question"
        assert exercise.solution, f"{where}: no solution (a block {SOLUTION[lang]!r} with an indented body)"
        solution = parse(exercise.solution)
        assert any(fence.language == "python" for fence in solution.fences), f"{where}: the solution computes nothing"
        prose = solution.prose
        assert len(prose.strip()) > 40, f"{where}: the solution does not explain its answer"
        typed = TYPED_RESULT.findall(FORMULA.sub("", NAMED_VALUE.sub("", prose)))
        assert not typed, f"{where}: the solution's prose types results by hand {typed}; print them from its code"


@pytest.mark.parametrize("page", PAGES)
def test_chinese_and_english_pages_have_the_same_exercises(exercises: dict, page: str) -> None:
    zh, en = exercises["zh", page], exercises["en", page]
    assert [e.anchor for e in zh] == [e.anchor for e in en], f"{page}: zh and en differ in their exercises"
    for a, b in zip(zh, en):
        kinds = [[f.language + (" exec" if "exec=" in f.info else "") for f in parse(e.solution).fences] for e in (a, b)]
        assert kinds[0] == kinds[1], f"{page} #{a.anchor}: the solutions run different code blocks {kinds}"


def test_there_are_enough_exercises(exercises: dict) -> None:
    for lang in HEADING:
        count = sum(len(exercises[lang, page]) for page in PAGES)
        assert count >= MINIMUM_PER_LANGUAGE, f"{lang}: only {count} exercises"


def test_some_exercises_send_the_reader_to_the_playground_and_the_notebook(exercises: dict) -> None:
    for lang in HEADING:
        questions = [exercise.question for page in PAGES for exercise in exercises[lang, page]]
        assert sum("(playground.md" in q for q in questions) >= 3, f"{lang}: fewer than 3 exercises use the playground"
        assert any("(notebook.ipynb" in q for q in questions), f"{lang}: no exercise uses the notebook"


def test_the_parser_notices_a_missing_solution(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Page { #page }\n\n## Exercises { #exercises }\n\n### Exercise 1: one { #exercise-1 }\n\nWhy?\n\n"
        '### Exercise 2: two { #exercise-2 }\n\nHow?\n\n??? success "Solution"\n\n    Because.\n',
        encoding="utf-8",
    )
    first, second = exercises_of(page, "en")
    assert (first.question, first.solution) == ("Why?", "")
    assert (second.question, second.solution) == ("How?", "Because.")


def test_the_typed_result_check_catches_a_typed_number() -> None:
    assert TYPED_RESULT.findall("“I” keeps 64% for itself, 0.64 of it, 2 GiB") == ["64%", "0.64", "2 GiB"]
    assert not TYPED_RESULT.findall(FORMULA.sub("", "steps 2 and 5, $\\sqrt{3}$ and $e^{-c}$"))
    assert not TYPED_RESULT.findall(NAMED_VALUE.sub("", "in FP16 it takes {{ long_fp16 }}"))
