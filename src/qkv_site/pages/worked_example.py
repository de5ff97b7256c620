"""The numbers of the page “逐步计算：一个完整的例子 / Step by step: a complete example”.

Every matrix, vector and percentage of the page comes from `qkv.examples.worked_example()`, one
property per step. Each sentence of the page that compares or describes these numbers (“they give
exactly the article's K and V”, “the row of love is the same as without the mask”, “love now attends
more to I”) is checked here against the numbers it compares: when they stop supporting it, the build
stops, naming the page and the sentence.

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> shown = values(project)
>>> shown["d_k"], shown["walk"].total, [step.weight for step in shown["walk"].steps]
('3', '4.95', ['0.64', '0.36'])
>>> [(row.query, row.cells[0].percent) for row in shown["shares"]]
[('I', '64%'), ('love', '36%')]
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from qkv import causal_mask, scaled_dot_product_attention, softmax
from qkv.examples import WorkedExample, worked_example
from qkv_site.playground_presets import presets_script
from qkv_site.project import Project
from qkv_site.values.claims import Claims, equal, greater, less
from qkv_site.values.formatting import bmatrix, factor, number, percent, printable, vector

PAGE = "worked-example.md"
# What the article assumes K and V to be (it gives X and W_Q, not W_K or W_V).
ARTICLE_K = ((1, 1, 0), (0, 1, 1))
ARTICLE_V = ((1, 0, 1), (0, 1, 0))
# The dot-product table: A, and the vectors B (same direction), C (perpendicular), D (opposite).
DIRECTIONS = {"A": (1, 0), "B": (1, 0), "C": (0, 1), "D": (-1, 0)}
CHANGED_CELL = (0, 1)  # exercise 4: the second cell of the first row of X goes from 0 to 1


claims = Claims(PAGE)


@dataclass(frozen=True)
class DotRow:
    """One row of the table of directions: the other vector and its dot product with A."""

    vector: str  # [1, 0]
    product: str  # 1 \times 1 + 0 \times 0 = 1, TeX


@dataclass(frozen=True)
class Cell:
    """One weight of a query's row: the key it goes to, as a score, a percentage, and whether it is the query itself."""

    key: str
    score: str
    percent: str
    own: bool


@dataclass(frozen=True)
class QueryRow:
    """One query's row: its cells, in key order, and its new vector (the output of step 5)."""

    query: str
    cells: tuple[Cell, ...]
    output: str  # [0.64, 0.36, 0.64]


@dataclass(frozen=True)
class WalkStep:
    """One score of the row done by hand: the score, e^score and its weight, each rounded."""

    score: str
    exp: str
    weight: str


@dataclass(frozen=True)
class Walkthrough:
    """Softmax of the first row as the article does it on paper."""

    scores: str  # [1.15, 0.58]
    steps: tuple[WalkStep, ...]
    exps_sum: str  # 3.16 + 1.79, TeX
    total: str


@dataclass(frozen=True)
class Change:
    """Exercise 4: how much one token attends to the first token, before and after the edit."""

    token: str
    before: str
    after: str


def _check_shape(example: WorkedExample) -> None:
    n, d_model = example.x.shape
    claims.require(n == 2, d_model == 4,
                   sentence="a simplified example of 2 words, each of 4 dimensions (two rows and two columns of weights)")


def _projections(example: WorkedExample) -> dict[str, str]:
    integers = all(np.issubdtype(w.dtype, np.integer) for w in (example.w_k, example.w_v))
    # exact: integer matrices multiply exactly on every machine
    claims.require(integers, bool(np.array_equal(example.k, ARTICLE_K)), bool(np.array_equal(example.v, ARTICLE_V)),
                   sentence="we fill in a pair of integer matrices W_K, W_V that give exactly the article's K and V")
    return {"w_q": bmatrix(example.w_q), "w_k": bmatrix(example.w_k), "w_v": bmatrix(example.w_v),
            "q": bmatrix(example.q), "k": bmatrix(example.k), "k_t": bmatrix(example.k.T), "v": bmatrix(example.v)}


def _terms(a: np.ndarray, b: np.ndarray) -> str:
    """A dot product written out term by term, in TeX: 2 \\times 1 + 0 \\times 1 + 1 \\times 0."""
    return " + ".join(f"{factor(x)} \\times {factor(y)}" for x, y in zip(a, b, strict=True))


def _dot(example: WorkedExample) -> dict[str, str]:
    q0, k0 = example.q[0], example.k[0]  # the Query and the Key of the first token
    return {"q": vector(q0), "k": vector(k0), "terms": _terms(q0, k0), "value": number(q0 @ k0)}


def _directions() -> dict[str, Any]:
    a = np.array(DIRECTIONS["A"])
    others = {name: np.array(DIRECTIONS[name]) for name in "BCD"}
    dots = {name: float(a @ other) for name, other in others.items()}
    cosines = {name: dots[name] / float(np.linalg.norm(a) * np.linalg.norm(other)) for name, other in others.items()}
    claims.require(equal(cosines["B"], 1.0), equal(cosines["C"], 0.0, scale=1.0), equal(cosines["D"], -1.0),
                   sentence="B points the same way as A, C is perpendicular to it, D points the opposite way")
    claims.require(greater(dots["B"], dots["C"]), equal(dots["C"], 0, scale=1.0), less(dots["D"], 0, scale=1.0),
                   sentence="same direction, the largest (a large) dot product; perpendicular, zero; "
                   "opposite, the smallest (a negative) one")
    claims.require(equal(float(a @ (2 * others["B"])), 2 * dots["B"]),
                   sentence="a vector in the same direction as B and twice as long doubles the dot product")
    rows = {name: DotRow(vector(other), f"{_terms(a, other)} = {number(dots[name])}") for name, other in others.items()}
    return {"a": vector(a), **rows}


def _value_rows(example: WorkedExample) -> tuple[str, ...]:
    """Each token's Value: note-share-of-value says the output mixes these, not the input vectors."""
    weights, v = example.weights, example.v  # (n, n), (n, d_v)
    claims.require(equal(example.output, weights @ v, scale=1.0),
                   sentence="note share-of-value: each output is the weights times the Values")
    return tuple(vector(row) for row in v)


def _rows(example: WorkedExample) -> tuple[QueryRow, ...]:
    tokens, scores, weights = example.tokens, example.scores, example.weights
    return tuple(
        QueryRow(query, tuple(Cell(key, number(scores[i, j]), percent(weights[i, j]), i == j) for j, key in enumerate(tokens)),
                 vector(example.output[i]))
        for i, query in enumerate(tokens)
    )


def _walkthrough(example: WorkedExample) -> Walkthrough:
    walk = example.softmax_walkthrough(row=0)
    steps = tuple(WalkStep(number(z), number(e), number(w)) for z, e, w in zip(walk.scores, walk.exps, walk.weights, strict=True))
    return Walkthrough(vector(walk.scores), steps, " + ".join(number(e) for e in walk.exps), number(walk.total))


def _check_weights(example: WorkedExample) -> None:
    w = example.weights
    claims.require(equal(w.sum(axis=-1), 1.0), sentence="each row of the weights adds up to 1")
    off_diagonal = w[~np.eye(len(w), dtype=bool)]
    claims.require(greater(off_diagonal, 0, scale=1.0), equal(example.output, w @ example.v, scale=np.abs(example.v).max()),
                   sentence="every word's new vector blends in information from the other words (a weighted sum of V)")


def _scores_not_weights(example: WorkedExample) -> dict[str, str]:
    """The note on the table of step 2: one score, two rows, two different weights."""
    scores, weights = example.scores, example.weights
    first, last = 0, len(example.tokens) - 1
    claims.require(equal(scores[first, first], scores[last, first]), greater(weights[first, first], weights[last, first]),
                   greater(scores[last, last], scores[last, first]),
                   sentence="note scores-not-weights: “I” to “I” and “love” to “I” have the same score, yet “love” gives "
                            "“I” less weight, "
             "because its row has a higher score")
    return {"first": example.tokens[first], "last": example.tokens[last], "score": number(scores[first, first]),
            "higher": number(scores[last, last]), "own": percent(weights[first, first]),
            "other": percent(weights[last, first])}


def _exp_versus_sum(example: WorkedExample) -> dict[str, str]:
    """The note on “the exponential amplifies differences”: each row divided by its sum against its softmax."""
    scores, scaled, weights = example.scores, example.scaled_scores, example.weights
    by_sum = scaled / scaled.sum(axis=-1, keepdims=True)
    claims.require(equal(by_sum, scores / scores.sum(axis=-1, keepdims=True), scale=1.0),
                   sentence="note exp-versus-sum: dividing by the sum gives the same shares before and after the scaling")
    first, last = 0, len(example.tokens) - 1
    claims.require(greater(by_sum[first, first], weights[first, first]),
                   sentence="note exp-versus-sum: on the row of “I”, dividing by the sum gives “I” more than softmax does")
    claims.require(greater(weights[last, last], by_sum[last, last]),
                   sentence="note exp-versus-sum: on the row of “love”, softmax gives more than dividing by the sum")
    unscaled = softmax(scores[first])
    claims.require(greater(unscaled[first], by_sum[first, first]),
                   sentence="note exp-versus-sum: softmax of the unscaled row of “I” is more decided than dividing by the sum")
    return {"first": example.tokens[first], "last": example.tokens[last],
            "first_scores": vector(scaled[first]), "last_scores": vector(scaled[last]),
            "raw_scores": vector(scores[first]),
            "first_by_sum": percent(by_sum[first, first]), "first_softmax": percent(weights[first, first]),
            "last_by_sum": percent(by_sum[last, last]), "last_softmax": percent(weights[last, last]),
            "raw_softmax": percent(unscaled[first]), **_by_sum_from_printed(example)}


def _by_sum_from_printed(example: WorkedExample) -> dict[str, Any]:
    """The share “dividing by the sum” gives “I”, as a reader recomputes it from the printed, rounded scaled scores.

    The shares do not depend on the scaling, so the unscaled scores give them exactly; the printed scaled scores
    (two decimals) can give another last digit, and the note says so when they do.
    """
    scores, scaled = example.scores[0], example.scaled_scores[0]
    printed = np.array([float(number(s)) for s in scaled])  # what the page shows, rounded
    from_printed = printed[0] / printed.sum()
    exact = scores[0] / scores.sum()
    integral = bool(equal(scores, np.round(scores), scale=float(np.abs(scores).max())))
    return {"by_sum_from_printed": f"{printable(from_printed * 100, 1):.1f}%",
            "by_sum_exact": f"{printable(exact * 100, 1):.1f}%",
            "by_sum_fraction": (f"{round(scores[0])}/{round(scores.sum())}" if integral else ""),
            "printed_scaled": [number(s) for s in scaled],
            # exact: strings, the two roundings the reader can see
            "printed_differs": f"{printable(from_printed * 100, 1):.1f}" != f"{printable(exact * 100, 1):.1f}"}


def _exercise_1(example: WorkedExample) -> dict[str, str]:
    zeros = np.zeros((example.x.shape[1], 1), dtype=int)  # (d_model, 1)
    wider = dataclasses.replace(example, w_q=np.hstack([example.w_q, zeros]), w_k=np.hstack([example.w_k, zeros]))
    before, after = example.weights, wider.weights
    claims.require(wider.d_k == example.d_k + 1, bool(np.array_equal(wider.scores, example.scores)),  # exact: integers
                   sentence="exercise 1: with a column of zeros QK^T does not change at all; only the divisor grows")
    claims.require(less(after.max(axis=-1), before.max(axis=-1)), less(after[0, 0], before[0, 0]),
                   sentence="exercise 1: softmax gets flatter, and “I” keeps a little less attention for itself")
    return {"d_k": str(wider.d_k), "scores": bmatrix(wider.scores), "scaled": bmatrix(wider.scaled_scores),
            "weights": bmatrix(after), "before": percent(before[0, 0]), "after": percent(after[0, 0])}


def _exercise_2(example: WorkedExample) -> dict[str, str]:
    n = len(example.tokens)
    output, weights = scaled_dot_product_attention(example.q, example.k, example.v, mask=causal_mask(n))
    claims.require(equal(weights[0], np.eye(n)[0], scale=1.0), equal(output[0], example.v[0], scale=np.abs(example.v).max()),
                   sentence="exercise 2: softmax gives all the weight of the first row to “I”, whose output is its own value")
    claims.require(equal(weights[-1], example.weights[-1], scale=1.0),
                   equal(output[-1], example.output[-1], scale=np.abs(example.v).max()),
                   sentence="exercise 2: the row of “love” is exactly the same as without the mask")
    return {"weights": bmatrix(weights), "output": bmatrix(output)}


def _check_exercise_3(example: WorkedExample) -> None:
    scaled = example.scaled_scores
    shifted = scaled - scaled.max(axis=-1, keepdims=True)
    claims.require(equal(softmax(shifted), softmax(scaled), scale=1.0),
                   sentence="exercise 3: subtracting each row's maximum gives the same result")
    large = softmax(np.array([1000.0, 999.0]))
    claims.require(bool(np.all(np.isfinite(large))), equal(large, softmax(np.array([1.0, 0.0])), scale=1.0),
                   sentence="exercise 3: large scores do not overflow, and the result is that of softmax([1, 0])")


def _exercise_4(example: WorkedExample) -> dict[str, Any]:
    row, column = CHANGED_CELL
    claims.require(bool(example.x[row, column] == 0), sentence="exercise 4: change the second cell of the first row of X "
                                                               "from 0 to 1")
    x = np.array(example.x)
    x[row, column] = 1
    changed = dataclasses.replace(example, x=x)
    moved = {name: not equal(getattr(changed, name)[row], getattr(example, name)[row], scale=1.0) for name in ("q", "k", "v")}
    claims.require(all(moved.values()), sentence="exercise 4: changing the vector of “I” changes its query, its key and its "
                                                 "value at once")
    rows_moved = [not equal(changed.weights[i], example.weights[i], scale=1.0) for i in range(len(example.tokens))]
    claims.require(all(rows_moved), sentence="exercise 4: the first row changes, and even the row of “love” moves: "
                                             "everybody's attention moves")
    love = len(example.tokens) - 1
    claims.require(greater(changed.scores[love, row], example.scores[love, row]),
                   greater(changed.weights[love, row], example.weights[love, row]),
                   sentence="exercise 4: the query of “love” is now better aligned with the key of “I”, and “love” attends "
                            "more to “I”")
    changes = tuple(Change(token, percent(example.weights[i, row]), percent(changed.weights[i, row]))
                    for i, token in enumerate(example.tokens))
    return {"x_row": vector(x[row]), "q": bmatrix(changed.q), "k": bmatrix(changed.k), "weights": bmatrix(changed.weights),
            "first": example.tokens[row], "attention_to_first": changes}


def values_of(example: WorkedExample) -> dict[str, Any]:
    """Everything the page shows of `example`, each sentence about it checked (`ClaimError` if one fails)."""
    _check_shape(example)
    _check_weights(example)
    _check_exercise_3(example)
    return {
        "tokens": example.tokens,
        "x": bmatrix(example.x),
        "x_rows": tuple(vector(row) for row in example.x),
        "d_k": str(example.d_k),
        **_projections(example),
        "dot": _dot(example),
        "directions": _directions(),
        "scores": bmatrix(example.scores),
        "scaled_scores": bmatrix(example.scaled_scores),
        "walk": _walkthrough(example),
        "weights": bmatrix(example.weights),
        "output": bmatrix(example.output),
        "shares": _rows(example),
        "v_rows": _value_rows(example),
        "presets_script": presets_script(),
        "exercise_1": _exercise_1(example),
        "exercise_2": _exercise_2(example),
        "exercise_4": _exercise_4(example),
        "scores_not_weights": _scores_not_weights(example),
        "exp_versus_sum": _exp_versus_sum(example),  # checked last: an altered example fails the exercises' sentences first
    }


@cache
def values(project: Project) -> dict[str, Any]:
    return values_of(worked_example())
