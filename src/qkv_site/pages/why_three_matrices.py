"""The numbers of the page “为什么要分三个矩阵 Q、K、V？ / Why three separate matrices?”.

From `qkv.examples` (the illustrative “猫 坐在 垫子 上” and the worked example “I love”) and
`qkv.projections`. Each sentence of the page that describes these numbers (“坐在” attends most to
itself without projections, “I” and “love” have vectors of the same length, …) is checked here
against the numbers it describes: when they stop supporting it, the build stops naming it.

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> values(project)["unprojected"], values(project)["exercise_2"]["rank"]
(['17%', '48%', '17%', '17%'], '3')
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from qkv import project, scaled_dot_product_attention
from qkv.analysis import asymmetry
from qkv.examples import cat_sat_on_mat, worked_example
from qkv_site.pages import learned_attention
from qkv_site.project import Project
from qkv_site.values.claims import Claims, at_least, at_most, equal, greater, largest
from qkv_site.values.formatting import bmatrix, percent, vector

PAGE = "why-three-matrices.md"
SHORT_LONG = ((1.0, 0.0), (3.0, 0.0))  # exercise 1's counterexample: same direction, different lengths
D_MODEL, D_K = 512, 64  # exercise 2: the sizes of the parameter count


claims = Claims(PAGE)


def _unprojected(x: np.ndarray) -> np.ndarray:
    """softmax(X·Xᵀ), the weights of attention without projections (Q = K = V = X, unscaled), (n, n)."""
    _, weights = scaled_dot_product_attention(x, x, x, scale=1.0)
    return weights


def _subspace() -> dict[str, Any]:
    cat = cat_sat_on_mat()
    sit, subject, on = cat.tokens.index("坐在"), cat.tokens.index("猫"), cat.tokens.index("上")
    unprojected, projected = _unprojected(np.asarray(cat.x, dtype=float))[sit], cat.weights[sit]  # the row of 坐在
    claims.require(largest(unprojected) == sit, not greater(unprojected[subject], unprojected[on]),
                   sentence="without projections 坐在 gives most of its attention to itself, and no more to 猫 than to 上")
    claims.require(largest(projected) == subject, greater(projected[subject], 0.5),
                   sentence="with W_Q and W_K, most of the attention of 坐在 lands on 猫")
    return {"tokens": [{"token": t, "gloss": g} for t, g in zip(cat.tokens, cat.glosses, strict=True)],
            "unprojected": [percent(w) for w in unprojected], "projected": [percent(w) for w in projected]}


def _exercise_1() -> dict[str, str]:
    x = np.asarray(worked_example().x, dtype=float)  # (2, 4): “I”, “love”
    squared_norms = (x**2).sum(axis=1)
    weights = _unprojected(x)
    claims.require(equal(squared_norms, squared_norms[0]), [largest(row) for row in weights] == list(range(len(x))),
                   sentence="the vectors of I and love have the same length, and each attends most to itself")
    short_long = np.array(SHORT_LONG)
    counter = _unprojected(short_long)
    claims.require(greater(counter[0, 1], counter[0, 0]),
                   sentence="in the counterexample the longer vector gets more than the token itself")
    return {"xxt": bmatrix(x @ x.T), "squared_norms": vector(squared_norms), "weights": bmatrix(weights),
            "counter_x": bmatrix(short_long), "counter_weights": bmatrix(counter),
            "counter_own": percent(counter[0, 0]), "counter_other": percent(counter[0, 1])}


def _exercise_2() -> dict[str, str]:
    example = worked_example()
    x = np.asarray(example.x, dtype=float)
    merged = example.w_q @ example.w_k.T  # (d_model, d_k) @ (d_k, d_model) -> (d_model, d_model)
    rank = int(np.linalg.matrix_rank(merged))
    claims.require(equal(example.scores, x @ merged @ x.T, scale=np.abs(example.scores).max()), rank <= example.d_k,
                   sentence="QKᵀ = X (W_Q W_Kᵀ) Xᵀ holds, and the product's rank is at most d_k")
    separate, one = 2 * D_MODEL * D_K, D_MODEL**2
    return {"merged": bmatrix(merged), "rank": str(rank), "d_k": str(example.d_k), "d_model_large": str(D_MODEL),
            "d_k_large": str(D_K), "separate": f"{separate:,}", "one": f"{one:,}", "times": f"{one // separate}"}


def _exercise_3() -> dict[str, Any]:
    example = worked_example()
    tied = worked_example(w_q=example.w_k)
    key_lengths = (project(tied.x, tied.w_k) ** 2).sum(axis=1)
    scale = np.abs(tied.scores).max()
    claims.require(equal(asymmetry(tied.scores), 0, scale=scale), sentence="with W_Q = W_K, QKᵀ is a symmetric matrix")
    claims.require(equal(asymmetry(tied.weights), 0, scale=1.0), equal(key_lengths, key_lengths[0]),
                   sentence="here even the weights are symmetric, because the two keys have the same length")
    self_scores = np.diag(tied.scores)  # s_ii = ‖q_i‖², q_i = k_i
    claims.require(at_least(np.linalg.eigvalsh(tied.scores), 0, scale=scale),
                   at_most(tied.scores, np.sqrt(np.outer(self_scores, self_scores)), scale=scale),
                   sentence="with W_Q = W_K the score matrix is positive semi-definite: s_ij ≤ √(s_ii s_jj)")
    own = [largest(row) for row in tied.weights] == list(range(len(tied.tokens)))  # each row's largest weight on the diagonal?
    return {"scores": bmatrix(tied.scores), "weights": bmatrix(tied.weights),
            "scores_asymmetry": "0", "own": own}  # "0": equal to rounding, required just above


@cache
def values(project: Project) -> dict[str, Any]:
    subspace = _subspace()
    return {**subspace, "exercise_1": _exercise_1(), "exercise_2": _exercise_2(), "exercise_3": _exercise_3(),
            "trained": learned_attention.values(project)}  # the editor's notes: findings that hold in every seed
