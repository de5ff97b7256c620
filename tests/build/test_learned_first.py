"""The learned widgets' first state (qkv_site.builder.learned_first): the numbers the page carries for the article's
sentence are qkv.learning's forward pass of the exported model; the sentence lists are the model's own, for
model.js to read (the browser test compares the first state with what the model draws)."""

from __future__ import annotations

import numpy as np
import pytest
from learned_print_support import LEARNED
from learned_widget_support import RESULTS
from site_pages import built_path

from qkv.learning.rollout import rollout_weights
from qkv_site.builder.learned_first import first_state, read_first_states, with_first_states
from qkv_site.builder.learned_models import TASKS, export, exported_model, tasks_shown

TOLERANCE = 1e-9


def expected(task: str) -> dict:
    """qkv.learning's numbers for the article's sentence, on the weights the browser gets."""
    data = export(RESULTS, task)
    model = exported_model(data)
    sentence = data["sentences"]["article"][0]
    words = model.tokens(sentence)
    it = words.index("it")
    weights = model.attention(sentence)
    p = model.probabilities(sentence)
    return {"sentence": sentence, "words": words, "it": it, "word": model.resolve(sentence), "probabilities": p,
            "rows": [weights[0, it], weights[1, it], rollout_weights(weights)[-1, it]]}


def assert_first_state_is_qkv_learnings(state: dict, task: str) -> None:
    want = expected(task)
    assert state["sentence"] == want["sentence"] and state["words"] == want["words"] and state["it"] == want["it"]
    assert state["answer"]["word"] == want["word"]
    assert abs(state["answer"]["probability"] - want["probabilities"][want["word"]]) <= TOLERANCE
    assert len(state["rows"]) == len(want["rows"])
    for got, row in zip(state["rows"], want["rows"], strict=True):
        assert len(got) == len(want["words"])
        assert np.abs(np.array(got) - row).max() <= TOLERANCE


@pytest.mark.parametrize("task", TASKS)
def test_the_first_state_is_qkv_learnings_forward_pass_of_the_article_sentence(task: str) -> None:
    assert_first_state_is_qkv_learnings(first_state(export(RESULTS, task)), task)


@pytest.mark.parametrize("task", TASKS)
def test_the_first_state_carries_the_task_s_sentence_lists_for_the_browser_to_read(task: str) -> None:
    data = export(RESULTS, task)
    state = first_state(data)
    assert state["sentences"] == data["sentences"] and state["sentence"] == data["sentences"]["article"][0]
    assert not set(state) & {"parameters", "vocabulary", "options"}  # numbers of the first view only, no weights


def test_every_widget_gets_its_first_state_in_its_tag() -> None:
    page = ('<p>a</p><div class="qkv-learned-widget" data-model="referent"></div>'
            '<div data-model="coreference" class="qkv-learned-widget"></div>')
    written = with_first_states(page, RESULTS)
    assert tasks_shown(written) == ["referent", "coreference"] and written.startswith("<p>a</p>")
    states = read_first_states(written)
    assert sorted(states) == sorted(TASKS)
    for task in TASKS:
        assert_first_state_is_qkv_learnings(states[task], task)
    assert with_first_states("<p>no widget</p>", RESULTS) == "<p>no widget</p>"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_built_page_carries_each_widget_s_first_state(site, lang: str) -> None:
    states = read_first_states(built_path(site, LEARNED, lang).read_text(encoding="utf-8"))
    assert sorted(states) == sorted(TASKS)
    for task in TASKS:
        assert_first_state_is_qkv_learnings(states[task], task)
