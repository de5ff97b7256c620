"""The numbers of the page “权重矩阵是对称的吗？ / Is the attention matrix symmetric?”.

Each comparison the page's prose makes (“I” gives “cats” more than “cats” gives “I”, …) is checked
here against the numbers it compares: when they stop supporting it, the build stops naming it.

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> values(project)["measured"]["frobenius"]
'1.37'
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from qkv import causal_mask, self_attention
from qkv.analysis import asymmetry
from qkv.examples import cat_sat_on_mat, query_equals_key_example, worked_example
from qkv_site.project import Project
from qkv_site.values.claims import Claims, equal, greater, largest
from qkv_site.values.formatting import bmatrix, number, percent, vector

claims = Claims("asymmetry.md")
WEIGHTS = 1.0  # the magnitude of attention weights: a difference of two is compared with 0 at this scale


def _softmax_note() -> dict[str, str]:
    three = query_equals_key_example()
    w = three.weights
    i, cats = three.tokens.index("I"), three.tokens.index("cats")
    claims.require(equal(asymmetry(three.scores), 0, scale=np.abs(three.scores).max()), greater(w[i, cats], w[cats, i]),
                   sentence="symmetric scores; I gives cats more than cats gives I")
    return {"scores": bmatrix(three.scores), "weights": bmatrix(w),
            "i_to_cats": percent(w[i, cats]), "cats_to_i": percent(w[cats, i])}


def _coincidence() -> dict[str, str]:
    example = worked_example()
    s, w = example.scores, example.weights
    # Exact in any arithmetic: the two gaps are equal and the weights symmetric; computed, they agree to rounding.
    gap = s[0, 0] - s[0, 1]
    claims.require(equal(gap, s[1, 1] - s[1, 0], scale=np.abs(s).max()), greater(gap, 0, scale=np.abs(s).max()),
                   equal(asymmetry(w), 0, scale=WEIGHTS),
                   sentence="each token scores itself higher than the other by the same amount, so both rows split alike")
    return {"gap": number(s[0, 0] - s[0, 1]), "s00": number(s[0, 0]), "s01": number(s[0, 1]), "s11": number(s[1, 1]),
            "s10": number(s[1, 0]), "own": percent(w[0, 0]), "other": percent(w[0, 1])}


def _measured() -> dict[str, str]:
    cat = cat_sat_on_mat()
    w = cat.weights
    cat_i, sit_i = cat.tokens.index("猫"), cat.tokens.index("坐在")
    claims.require(greater(w[sit_i, cat_i], w[cat_i, sit_i]), sentence="坐在 attends to 猫 more than 猫 attends to 坐在")
    cat_top = largest(w[cat_i])  # note-cat-modifiers: where 猫's largest weight goes, the sentence has no modifier of it
    claims.require(cat_top not in (cat_i, sit_i), sentence="猫's largest weight goes to a word other than itself and 坐在")
    return {"weights": bmatrix(w), "transposed": bmatrix(w.T), "sit_to_cat": percent(w[sit_i, cat_i]),
            "cat_to_sit": percent(w[cat_i, sit_i]), "frobenius": number(asymmetry(w)),
            "cat_top": cat.tokens[cat_top], "cat_top_gloss": cat.glosses[cat_top], "cat_top_weight": percent(w[cat_i, cat_top]),
            "sit_gloss": cat.glosses[sit_i]}


def _exercise_1() -> dict[str, str]:
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # (3 tokens, d_model = 2)
    identity = np.eye(2)
    _, weights = self_attention(x, identity, identity, identity)  # (3, 3)
    scores = x @ x.T / np.sqrt(2)
    row_sums = np.exp(scores).sum(axis=1)  # Z_i
    claims.require(equal(asymmetry(scores), 0, scale=np.abs(scores).max()), greater(asymmetry(weights), 0, scale=WEIGHTS),
                   greater(row_sums[2], row_sums[0]),
                   sentence="symmetric scores, asymmetric weights, and the third row has the largest sum")
    return {"scores": bmatrix(scores), "weights": bmatrix(weights), "scores_asymmetry": number(asymmetry(scores)),
            "weights_asymmetry": number(asymmetry(weights)), "row_sums": vector(row_sums),
            "rescaled_asymmetry": number(asymmetry(row_sums[:, None] * weights))}


def _exercise_2() -> list[dict[str, Any]]:
    identity = np.eye(4)
    rows: list[dict[str, Any]] = []
    for x in (worked_example().x, np.array([[1.0, 0, 1, 0], [0, 1, 1, 1]])):
        _, weights = self_attention(x, identity, identity, identity)  # (2, 2)
        sentence = "the preset's weights are symmetric; after the edit I gives love more than love gives I"
        rows.append({"x": bmatrix(x), "weights": bmatrix(weights), "asymmetry": number(asymmetry(weights)),
                     "symmetric": claims.decide(equal(asymmetry(weights), 0, scale=WEIGHTS), sentence=sentence),
                     "i_to_love_larger": claims.decide(greater(weights[0, 1], weights[1, 0]), sentence=sentence)})
    before, after = rows
    claims.require(before["symmetric"], not after["symmetric"], after["i_to_love_larger"],
                   sentence="the preset's weights are symmetric; after the edit I gives love more than love gives I")
    return rows


def _exercise_3() -> dict[str, str]:
    cat = cat_sat_on_mat()
    _, masked = self_attention(cat.x, cat.w_q, cat.w_k, cat.w_v, mask=causal_mask(len(cat.tokens)))  # (4, 4)
    # A masked weight is exactly 0 on every machine: exp(-inf) = 0.
    claims.require(bool(np.all(np.triu(masked, 1) == 0)), greater(asymmetry(masked), 0, scale=WEIGHTS),  # exact: masked weights
                   sentence="lower triangular and not symmetric")
    return {"weights": bmatrix(masked), "asymmetry": number(asymmetry(masked))}


@cache
def values(project: Project) -> dict[str, Any]:
    return {"softmax_note": _softmax_note(), "coincidence": _coincidence(), "measured": _measured(),
            "exercise_1": _exercise_1(), "exercise_2": _exercise_2(), "exercise_3": _exercise_3()}
