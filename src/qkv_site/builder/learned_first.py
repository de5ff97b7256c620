"""What a learned-attention widget shows before the reader touches it, computed when the site is built.

The widget (docs/assets/javascripts/learned/widget.js) first shows the article's sentence (the first of
``sentences.article`` of the exported model, `learned_models.export`): the selects set to its words, its
answer and probability, the row of "it" in each layer and its rollout. The build computes these numbers
with numpy from the same exported weights the browser reads (`learned_models.exported_model`) and writes
them into the widget's tag, ``data-first="…"`` (`with_first_states`), so that the widget draws its first
state at once and fetches its model (``learned-model-<task>.json``) only when the reader first uses it.

The state holds only what that first view shows and nothing the browser can work out itself: the task's
sentence lists (``sentences`` of the exported model: the selects' words, the frames, what training held out;
model.js ``matchFrame`` and ``heldout`` read them, before the model is in as after), the sentence, its words,
the position of "it", the answer with its probability, and the rows of "it": one per layer, then the rollout
(to `DIGITS` significant digits).

>>> state = first_state(export(Path("benchmarks/results"), "coreference"))
>>> state["sentence"], state["it"], state["answer"]["word"]
("The animal didn't cross the street because it was too tired", 7, 'animal')
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from qkv.learning.rollout import rollout_weights
from qkv_site.builder.learned_models import WIDGET, export, exported_model, tasks_shown
from qkv_site.values.claims import largest
from qkv_site.values.formatting import significant

ATTRIBUTE = "data-first"
# The numbers go into the page rounded to this many significant digits, each checked to round the same way on
# every machine (`significant`): the page is the same file whichever BLAS kernel computed them, and the widget
# shows two decimals of them.
DIGITS = 9


def first_state(data: dict[str, Any]) -> dict[str, Any]:
    """The widget's first view of the exported model `data`: its article sentence, computed by numpy."""
    model = exported_model(data)
    sentences = data["sentences"]
    sentence = sentences["article"][0]
    words = model.tokens(sentence)
    it = words.index("it")
    weights = model.attention(sentence)  # (layers, n, n)
    rows = [[significant(w, DIGITS) for w in weights[layer, it]] for layer in range(len(weights))]
    rows.append([significant(w, DIGITS) for w in rollout_weights(weights)[-1][it]])
    probabilities = model.probabilities(sentence)
    answers = list(probabilities)
    best = answers[largest([probabilities[word] for word in answers])]
    return {
        "sentences": sentences, "sentence": sentence, "words": words, "it": it,
        "answer": {"word": best, "probability": significant(probabilities[best], DIGITS)}, "rows": rows,
    }


@cache
def first_state_text(task: str, results_dir: Path) -> str:
    """`first_state` of `task`'s committed model as compact JSON (once per process)."""
    return json.dumps(first_state(export(results_dir, task)), ensure_ascii=False, separators=(",", ":"))


def with_first_states(html_text: str, results_dir: Path) -> str:
    """`html_text` with every widget's first state in its tag: ``<div class="qkv-learned-widget" … data-first="…">``."""
    if not tasks_shown(html_text):
        return html_text

    def with_state(widget: re.Match[str]) -> str:
        task = tasks_shown(widget.group(0))[0]
        state = html.escape(first_state_text(task, results_dir), quote=False).replace('"', "&quot;")
        return f'{widget.group(0)[:-1]} {ATTRIBUTE}="{state}">'

    return WIDGET.sub(with_state, html_text)


def read_first_states(html_text: str) -> dict[str, dict[str, Any]]:
    """The first states written into `html_text`'s widgets, by task (what the page gives the browser)."""
    found = {}
    for tag in WIDGET.findall(html_text):
        state = re.search(rf'\b{ATTRIBUTE}="([^"]*)"', tag)
        if state:
            found[tasks_shown(tag)[0]] = json.loads(html.unescape(state.group(1)))
    return found
