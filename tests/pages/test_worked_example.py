"""The worked-example page's sentences about its numbers (qkv_site.pages.worked_example): each one
stops the build, naming the page and the sentence, when the numbers it describes change under it."""

from __future__ import annotations

import re

import numpy as np
import pytest
from mkdocs.exceptions import PluginError

from qkv.examples import worked_example
from qkv_site.builder.page_values import render
from qkv_site.content.claims import ClaimError
from qkv_site.pages import worked_example as page
from qkv_site.project import Project

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
