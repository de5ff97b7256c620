"""Scaled dot-product attention: Attention(Q, K, V) = softmax(Q·Kᵀ / √d_k) · V, step by step."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from qkv._checks import (
    as_matrices,
    broadcast_batch_shape,
    check_computed_finite,
    check_mask,
    check_same_d_k,
    check_same_n_k,
    check_scale,
)
from qkv.softmax import softmax


def attention_scores(q: ArrayLike, k: ArrayLike, scale: float | None = None) -> np.ndarray:
    """The scaled scores Q·Kᵀ · scale, shape (..., n_q, n_k) (steps 2 and 3 of the article).

    Entry (i, j) is the dot product of query i with key j: large when they point the same
    way. `scale` defaults to 1/√d_k, which brings the dot products' variance back to 1 (see
    `qkv.analysis.dot_product_variance`); pass `scale=1.0` to see the raw Q·Kᵀ.

    The article's Q and K:

    >>> q = [[2, 0, 1], [0, 2, 1]]
    >>> k = [[1, 1, 0], [0, 1, 1]]
    >>> attention_scores(q, k, scale=1.0)
    array([[2., 1.],
           [2., 3.]])
    >>> attention_scores(q, k).round(2)
    array([[1.15, 0.58],
           [1.15, 1.73]])
    """
    q, k = as_matrices("(..., n, d_k)", q=q, k=k)
    check_same_d_k(q, k)
    broadcast_batch_shape(q=q, k=k)
    d_k = q.shape[-1]
    scale = 1.0 / math.sqrt(d_k) if scale is None else check_scale(scale)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow becomes an error just below
        scores = q @ np.swapaxes(k, -1, -2) * scale  # (..., n_q, d_k) @ (..., d_k, n_k) -> (..., n_q, n_k)
    check_computed_finite(scores, "q·kᵀ·scale")
    return scores


def scaled_dot_product_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    mask: ArrayLike | None = None,
    scale: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """softmax(Q·Kᵀ · scale) · V; returns `(output, weights)`.

    Shapes: q (..., n_q, d_k), k (..., n_k, d_k), v (..., n_k, d_v) -> output (..., n_q, d_v)
    and weights (..., n_q, n_k). Leading batch/head dimensions broadcast as in numpy.
    `mask` is boolean and broadcasts to (..., n_q, n_k); True means "may attend" (PyTorch's
    boolean convention). Each row of `weights` sums to 1 and says how much of each value
    vector goes into that query's output. Float inputs keep their dtype (float32 stays
    float32), ints and lists become float64.

    The article's five steps, with Q, K, V from "I love":

    >>> q = [[2, 0, 1], [0, 2, 1]]
    >>> k = [[1, 1, 0], [0, 1, 1]]
    >>> v = [[1, 0, 1], [0, 1, 0]]
    >>> output, weights = scaled_dot_product_attention(q, k, v)
    >>> weights.round(2)
    array([[0.64, 0.36],
           [0.36, 0.64]])
    >>> output.round(2)
    array([[0.64, 0.36, 0.64],
           [0.36, 0.64, 0.36]])

    With a causal mask "I" can no longer see "love":

    >>> from qkv import causal_mask
    >>> scaled_dot_product_attention(q, k, v, mask=causal_mask(2))[1].round(2)
    array([[1.  , 0.  ],
           [0.36, 0.64]])
    """
    q, k, v = as_matrices("(..., n, d)", q=q, k=k, v=v)
    check_same_d_k(q, k)
    check_same_n_k(k, v)
    batch_shape = broadcast_batch_shape(q=q, k=k, v=v)

    scores = attention_scores(q, k, scale)  # (..., n_q, n_k)
    # v may carry batch dims that q and k lack; give the weights the full batch shape too.
    scores = np.broadcast_to(scores, batch_shape + scores.shape[-2:])
    if mask is not None:
        mask = check_mask(mask, scores.shape)
        # exp(-inf) = 0: a masked key drops out of both the numerator and the sum.
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)  # (..., n_q, n_k), rows sum to 1
    with np.errstate(over="ignore", invalid="ignore"):  # float16 can still overflow; checked below
        output = weights @ v  # (..., n_q, n_k) @ (..., n_k, d_v) -> (..., n_q, d_v)
    check_computed_finite(output, "weights·v")
    return output, weights
