"""The worked-example page's sentences about its numbers (qkv_site.pages.worked_example): each one
stops the build, naming the page and the sentence, when the numbers it describes change under it; its notes print
the numbers as named values, and its programs compute the values its prose prints."""

from __future__ import annotations

import re

import numpy as np
import pytest
from mkdocs.exceptions import PluginError
from page_sources import DOCS_SRC, note, run_program, source
from repository import LANGUAGES

from qkv import softmax
from qkv.examples import worked_example
from qkv_site.builder.page_values import render
from qkv_site.pages import worked_example as page
from qkv_site.project import Project
from qkv_site.values.claims import ClaimError
from qkv_site.values.formatting import percent

# Other integer matrices that still give the article's K from the article's X (rows 0+2 and 1+3
# add up as before) but a different key for "I" once X changes: the results of exercise 4 depend on them.
W_K_SAME_K = [[1, 0, 0], [0, -1, 0], [0, 1, 0], [0, 2, 1]]
# A W_Q with the same query for "love" whose query for "I" scores "love" higher than itself.
W_Q_I_PREFERS_LOVE = [[0, 1, 0], [0, 1, 0], [0, 0, 1], [0, 1, 1]]


def test_the_page_s_own_numbers_support_every_sentence(project: Project) -> None:
    assert page.values_of(worked_example()) == page.values(project)  # no ClaimError: the tests below change one thing each


def test_matrices_that_miss_the_article_s_k_stop_the_sentence_that_says_they_give_it() -> None:
    with pytest.raises(ClaimError, match=r"^worked-example\.md: .*exactly the article's K and V"):
        page.values_of(worked_example(w_k=np.eye(4, 3, dtype=int)))


def test_exercise_4_s_comparison_fails_when_love_attends_less_to_i() -> None:
    other = worked_example(w_k=W_K_SAME_K)
    assert np.array_equal(other.k, worked_example().k)  # every sentence before exercise 4 still holds
    with pytest.raises(ClaimError, match=r"^worked-example\.md: .*exercise 4: .*“love” attends more to “I”"):
        page.values_of(other)


def test_exercise_1_s_comparison_fails_when_i_gains_attention_from_a_larger_divisor() -> None:
    other = worked_example(w_q=W_Q_I_PREFERS_LOVE)
    assert other.scores[0, 0] < other.scores[0, 1]
    with pytest.raises(ClaimError, match=r"^worked-example\.md: .*exercise 1: .*a little less attention for itself"):
        page.values_of(other)


def test_the_table_of_directions_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(page.DIRECTIONS, "B", (2, 0))  # same direction, but longer: still the largest
    page.values_of(worked_example())
    monkeypatch.setitem(page.DIRECTIONS, "C", (1, 1))  # no longer perpendicular to A
    with pytest.raises(ClaimError, match=r"^worked-example\.md: .*C is perpendicular"):
        page.values_of(worked_example())


def test_the_build_stops_naming_the_page_when_the_example_changes(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(page, "worked_example", lambda: worked_example(w_k=W_K_SAME_K))
    page.values.cache_clear()
    try:
        failed = "zh/worked-example.md: its values (qkv_site.pages.worked_example) failed: ClaimError"
        with pytest.raises(PluginError, match=re.escape(failed)):
            render("{{ d_k }}", {"values": "worked_example"}, "zh/worked-example.md", project)
    finally:
        page.values.cache_clear()


def test_the_exact_share_is_a_fraction_only_for_integer_scores() -> None:
    import dataclasses

    example = worked_example()
    assert page._by_sum_from_printed(example)["by_sum_fraction"] == "2/3"
    scaled_up = dataclasses.replace(example, x=example.x * 1.1)  # scores 1.21 times as large: no longer integers
    shown = page._by_sum_from_printed(scaled_up)
    assert shown["by_sum_fraction"] == "" and shown["by_sum_exact"] == "66.7%"  # the page then says “about 66.7%”


# The programs the page shows ----------------------------------------------------------------------


def test_worked_example_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    import numpy as np

    from qkv import softmax
    from qkv_site.pages.worked_example import values
    from qkv_site.values.formatting import bmatrix, percent, vector

    shown = values(project)
    folder = DOCS_SRC / "worked-example"
    variables, printed = run_program(folder / "input.py")
    assert variables["example"].tokens == shown["tokens"] and str(variables["example"].x) in printed
    assert bmatrix(variables["example"].x) == shown["x"] and vector(variables["example"].x[0]) == shown["x_rows"][0]
    step_1, _ = run_program(folder / "step_1.py")  # qkv.project vs the WorkedExample's properties
    assert [bmatrix(step_1[name]) for name in "qkv"] == [shown["q"], shown["k"], shown["v"]]
    step_2, printed = run_program(folder / "step_2.py")
    assert bmatrix(step_2["scores"]) == shown["scores"] and str(step_2["scores"]) in printed
    step_3, _ = run_program(folder / "step_3.py")
    assert bmatrix(step_3["scaled"]) == shown["scaled_scores"]
    step_4, printed = run_program(folder / "step_4.py")
    assert bmatrix(step_4["weights"]) == shown["weights"] and printed.splitlines()[-1] == "[1. 1.]"
    assert [step.weight for step in shown["walk"].steps] == [f"{w:.2f}" for w in step_4["weights"][0]]  # by hand vs exact
    percents = [[percent(w) for w in row] for row in step_4["weights"]]
    assert [[cell.percent for cell in row.cells] for row in shown["shares"]] == percents
    for name in ("step_5.py", "try_it.py"):  # try_it multiplies X by the weights itself
        program, printed = run_program(folder / name)
        assert bmatrix(program["output"]) == shown["output"] and str(program["output"].round(2)) in printed, name
        assert [row.output for row in shown["shares"]] == [vector(row) for row in program["output"]], name

    exercise_1, printed = run_program(folder / "exercise_1.py")
    wider, example = exercise_1["wider"], exercise_1["example"]
    assert printed.startswith(f"d_k = {shown['d_k']} -> {shown['exercise_1']['d_k']}\n")
    assert [bmatrix(wider.scores), bmatrix(wider.scaled_scores), bmatrix(wider.weights)] == [
        shown["exercise_1"][name] for name in ("scores", "scaled", "weights")]
    assert [percent(example.weights[0, 0]), percent(wider.weights[0, 0])] == [shown["exercise_1"][n] for n in ("before", "after")]
    exercise_2, printed = run_program(folder / "exercise_2.py")
    assert bmatrix(exercise_2["masked_weights"]) == shown["exercise_2"]["weights"]
    assert bmatrix(exercise_2["masked_output"]) == shown["exercise_2"]["output"]
    assert printed.splitlines()[-1] == "True"  # the page says the row of "love" is unchanged
    _, printed = run_program(folder / "exercise_3.py")
    assert printed.splitlines() == ["True", str(softmax(np.array([1.0, 0.0])).round(2))]  # the page: as softmax([1, 0])
    exercise_4, printed = run_program(folder / "exercise_4.py")
    changed = exercise_4["changed"]  # the program types the edited X; the values edit one cell of X
    assert vector(changed.x[0]) == shown["exercise_4"]["x_row"]
    matrices = [bmatrix(changed.q), bmatrix(changed.k), bmatrix(changed.weights)]
    assert matrices == [shown["exercise_4"][name] for name in ("q", "k", "weights")]
    rows = shown["exercise_4"]["attention_to_first"]
    assert [row.after for row in rows] == [percent(w) for w in changed.weights[:, 0]]
    assert [row.before for row in rows] == [percent(w) for w in exercise_4["example"].weights[:, 0]]


# “The exponential amplifies differences” ----------------------------------------------------------


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


# The table of step 2 calls its scores “attention” -------------------------------------------------


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
