"""What a learned-attention widget shows before the reader touches it, computed when the site is built.

The widget (docs/assets/javascripts/learned/widget.js) first shows the article's sentence (the first of
``sentences.article`` of the exported model, `learned_models.export`): the selects set to its words, its
answer and probability, the row of "it" in each layer and its rollout. The build computes these numbers
with numpy from the same exported weights the browser reads (`learned_models.exported_model`) and writes
them into the widget's tag, ``data-first="…"`` (`with_first_states`), so that the widget draws its first
state at once and fetches its model (``learned-model-<task>.json``) only when the reader first uses it.

The state holds only what that first view shows: the word lists of the selects (``choices``), the sentence,
the slots the selects show for it (the frame it matches, as model.js ``matchFrame`` reads it, or null) and the
adjectives that would make a held-out sentence with those slots (model.js ``heldout``), what training saw of
the sentence (``status``), its words, the position of "it", the answer with its probability, and the rows
of "it": one per layer, then the rollout.

>>> state = first_state(export(Path("benchmarks/results"), "coreference"))
>>> state["sentence"], state["slots"]["frame"], state["status"], state["answer"]["word"]
("The animal didn't cross the street because it was too tired", 0, 'triple', 'animal')
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

ATTRIBUTE = "data-first"
CHOICES = ("frames", "nouns", "adjectives", "prefixes", "intensifiers", "after_nouns")  # what the selects list


def _one_of(words: list[str]) -> str:
    return "|".join(re.escape(word) for word in words if word)


def _frame_expression(sentences: dict[str, Any], frame: str) -> re.Pattern[str]:
    """A frame as a regular expression over the joined words, a named group per slot (model.js frameExpression)."""
    nouns, adjectives = sentences["nouns"], _one_of([j for kind in sentences["adjectives"].values() for j in kind])
    after = sentences.get("after_nouns", [""])
    slots = {
        "animal": f"(?P<animal>{_one_of(nouns['animal'])})", "place": f"(?P<place>{_one_of(nouns['place'])})",
        "adjective": f"(?P<adjective>{adjectives})",
        "a": f"(?P<animal>{_one_of(nouns['animal'])})", "p": f"(?P<place>{_one_of(nouns['place'])})",
        "o": f"(?P<object>{_one_of(nouns.get('object', []))})", "j": f"(?P<adjective>{adjectives})",
        "i": f"(?P<intensifier>{_one_of(sentences.get('intensifiers', []))})",
        "m": f"(?P<after>(?: (?:{_one_of(after)}))?)",
    }
    body = "".join(slots[part[1:-1]] if re.fullmatch(r"\{\w+\}", part) else re.escape(part)
                   for part in re.split(r"(\{\w+\})", frame))
    prefixes = sentences.get("prefixes", [""])
    prefix = f"(?:(?P<prefix>{_one_of(prefixes)}) )?" if any(prefixes) else ""
    return re.compile(f"^{prefix}{body}$")


def match_frame(sentences: dict[str, Any], words: list[str]) -> dict[str, Any] | None:
    """Which of the task's frames `words` is, with its slots, or None (model.js ``matchFrame``).

    >>> from qkv_site.builder.learned_models import _sentences
    >>> match_frame(_sentences("coreference"), "the cat didn't cross the road because it was too tired".split())
    {'frame': 0, 'animal': 'cat', 'place': 'road', 'adjective': 'tired'}
    """
    text = " ".join(words)
    for number, pattern in enumerate(sentences["frames"]):
        found = _frame_expression(sentences, pattern).match(text)
        if found:
            slots: dict[str, Any] = {"frame": number, **found.groupdict()}
            if "after" in slots:
                slots["after"] = slots["after"].strip()
            if "prefix" in slots and slots["prefix"] is None:
                slots["prefix"] = ""
            return slots
    return None


def heldout(sentences: dict[str, Any], task: str, slots: dict[str, Any] | None) -> str:
    """What training saw of a sentence with these slots (model.js ``heldout``): "train", "other" (no frame), or
    what is new: "triple" (coreference), "referent", "pair" or "both" (referent)."""
    if slots is None:
        return "other"
    if task == "coreference":
        return "triple" if [slots["animal"], slots["place"], slots["adjective"]] in sentences["heldout_triples"] else "train"
    kind = next(kind for kind, words in sentences["adjectives"].items() if slots["adjective"] in words)
    new_referent = [slots[kind], slots["adjective"]] in sentences["heldout_referents"]
    new_pair = [slots["frame"], slots["adjective"]] in sentences["heldout_frames"]
    return "both" if new_referent and new_pair else "referent" if new_referent else "pair" if new_pair else "train"


def first_state(data: dict[str, Any]) -> dict[str, Any]:
    """The widget's first view of the exported model `data`: its article sentence, computed by numpy."""
    model = exported_model(data)
    task = data["options"]["task"]
    sentences = data["sentences"]
    sentence = sentences["article"][0]
    words = model.tokens(sentence)
    it = words.index("it")
    weights = model.attention(sentence)  # (layers, n, n)
    rows = [[float(w) for w in weights[layer, it]] for layer in range(len(weights))]
    rows.append([float(w) for w in rollout_weights(weights)[-1][it]])
    probabilities = model.probabilities(sentence)
    answers = list(probabilities)
    best = answers[largest([probabilities[word] for word in answers])]
    slots = match_frame(sentences, words)
    marked = ([j for kind in sentences["adjectives"].values() for j in kind
               if heldout(sentences, task, {**slots, "adjective": j}) != "train"] if slots else [])
    return {
        "choices": {name: sentences[name] for name in CHOICES if name in sentences},
        "sentence": sentence, "slots": slots, "heldout": marked, "status": heldout(sentences, task, slots),
        "words": words, "it": it, "answer": {"word": best, "probability": float(probabilities[best])}, "rows": rows,
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
