"""The numbers of the page “为什么需要 Self-Attention？ / Why do we need self-attention?”.

The hand-made figure's exercises, and the caption of the trained model's figure, whose numbers
come from the page “让模型自己学会注意 / Watching a model learn to attend” (the same runs).

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> values(project)["exercise_1"]["ratio"] == values(project)["exercise_1"]["exp_gap"]
True
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np

from qkv import attention_scores, self_attention
from qkv.examples import it_animal_sentence
from qkv_site.learned_results import results
from qkv_site.pages import learned_attention
from qkv_site.project import Project
from qkv_site.values.claims import Claims, equal, greater, largest, less
from qkv_site.values.formatting import fixed, number, percent

claims = Claims("motivation.md")


def _hand_made() -> dict[str, str]:
    row = it_animal_sentence().weights_of("it")
    tokens = list(row)
    top = tokens[largest([row[token] for token in tokens])]
    claims.require(top == "animal", greater(row["animal"], row["street"]), sentence="the tallest bar is on 'animal', not on "
                                                                                    "'street'")
    return {"animal": percent(row["animal"]), "street": percent(row["street"])}


def _exercise_1() -> dict[str, str]:
    sentence = it_animal_sentence()
    row = sentence.weights_of("it")
    q, k = sentence.x @ sentence.w_q, sentence.x @ sentence.w_k  # (12, 2) each
    scores = attention_scores(q, k)  # (12, 12)
    it, animal, street = (sentence.tokens.index(token) for token in ("it", "animal", "street"))
    gap = float(scores[it, animal] - scores[it, street])
    ratio = row["animal"] / row["street"]
    claims.require(equal(ratio, math.exp(gap)), sentence="the ratio of the two weights is e to the difference of their scores")
    return {"animal": percent(row["animal"]), "street": percent(row["street"]), "ratio": number(ratio),
            "gap": fixed(gap, 4), "exp_gap": number(math.exp(gap))}


def _exercise_2() -> dict[str, str]:
    sentence = it_animal_sentence()
    tokens = [token for token in sentence.tokens if token != "animal"]
    x = np.delete(sentence.x, sentence.tokens.index("animal"), axis=0)  # (11, 6)
    _, weights = self_attention(x, sentence.w_q, sentence.w_k, sentence.w_v)  # (11, 11)
    row = dict(zip(tokens, weights[tokens.index("it")], strict=True))
    others = [weight for token, weight in row.items() if token != "street"]
    before = sentence.weights_of("it")
    claims.require(greater(row["street"], max(others)), less(row["street"], before["animal"]), less(row["street"], 0.5),
                   sentence="'street' clearly on top, but nowhere near as concentrated as 'animal' was, most weight spread "
                            "elsewhere")
    return {"street": percent(row["street"]), "others": percent(min(others)), "street_before": percent(before["street"])}


def _trained(project: Project) -> dict[str, str]:
    """The caption of the trained figure: the learned-attention page's shown seed, from its committed results."""
    page = learned_attention.values(project)
    shown = results(project).shown("baseline")
    return {"train": page["task"]["train"], "steps": page["task"]["steps"], "layers": page["task"]["layers"],
            "accuracy": learned_attention.accuracy(shown["final"]), "heldout": page["task"]["heldout"],
            "seed": page["task"]["shown_seed"], "route": page["looks"]["route"], "harmless": page["looks"]["harmless"],
            "seeds": page["task"]["seeds"],
            "layer1_cross": page["looks"]["layer1_cross"], "layer2_tired": page["looks"]["layer2_adjective"],
            "layer2_animal": page["looks"]["layer2_animal"], "layer2_wide": page["looks"]["twin_layer2_wide"]}


@cache
def values(project: Project) -> dict[str, Any]:
    return {"hand_made": _hand_made(), "trained": _trained(project), "exercise_1": _exercise_1(), "exercise_2": _exercise_2()}
