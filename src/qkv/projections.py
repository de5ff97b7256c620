"""Self- and cross-attention: project inputs to Q = X·W_Q, K = X·W_K, V = X·W_V, then attend."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from qkv._checks import as_float_array, as_matrices, check_computed_finite, check_not_empty, check_same_d_k
from qkv.attention import Attention, scaled_dot_product_attention


def _project(x: ArrayLike, w: ArrayLike, x_name: str, w_name: str) -> np.ndarray:
    x, w = as_matrices("(..., n, d_model)", **{x_name: x, w_name: w})
    check_not_empty(x, x_name)
    check_not_empty(w, w_name)
    if w.ndim != 2:
        raise ValueError(f"{w_name} must be a 2-D matrix (d_model, d_out), got shape {w.shape}")
    if x.shape[-1] != w.shape[0]:
        raise ValueError(
            f"{x_name} has d_model={x.shape[-1]} but {w_name} has {w.shape[0]} rows "
            f"({x_name}.shape={x.shape}, {w_name}.shape={w.shape})"
        )
    with np.errstate(over="ignore", invalid="ignore"):  # overflow becomes an error just below
        projected: np.ndarray = x @ w  # (..., n, d_model) @ (d_model, d_out) -> (..., n, d_out)
    check_computed_finite(projected, f"{x_name}·{w_name}")
    return projected


def project(x: ArrayLike, w: ArrayLike) -> np.ndarray:
    """X·W: one row per token, mapped from d_model to W's number of columns.

    The same function makes Q, K and V; only the weight matrix differs.

    >>> x = [[1, 0, 1, 0], [0, 1, 0, 1]]
    >>> w_q = [[1, 0, 1], [0, 1, 0], [1, 0, 0], [0, 1, 1]]
    >>> project(x, w_q)
    array([[2., 0., 1.],
           [0., 2., 1.]])
    """
    return _project(x, w, "x", "w")


def _check_weights(w_q: ArrayLike, w_k: ArrayLike) -> None:
    # Catch a d_k mismatch on the weights, where the reader defined it, not later on Q and K.
    w_q, w_k = as_float_array(w_q, "w_q"), as_float_array(w_k, "w_k")
    if w_q.ndim == 2 and w_k.ndim == 2:
        check_same_d_k(w_q, w_k, "w_q", "w_k")


def self_attention(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    *,
    mask: ArrayLike | None = None,
) -> Attention:
    """Self-attention: Q, K and V all come from the same sequence x (..., n, d_model).

    Returns `(output, weights)` of shapes (..., n, d_v) and (..., n, n). w_q and w_k
    are (d_model, d_k); w_v is (d_model, d_v).

    The article's "I love" example (its W_K and W_V are ours, see `qkv.examples`):

    >>> x = [[1, 0, 1, 0], [0, 1, 0, 1]]
    >>> w_q = [[1, 0, 1], [0, 1, 0], [1, 0, 0], [0, 1, 1]]
    >>> w_k = [[1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1]]
    >>> w_v = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]]
    >>> output, weights = self_attention(x, w_q, w_k, w_v)
    >>> weights.round(2)
    array([[0.64, 0.36],
           [0.36, 0.64]])
    """
    _check_weights(w_q, w_k)
    q = _project(x, w_q, "x", "w_q")  # (..., n, d_k)
    k = _project(x, w_k, "x", "w_k")  # (..., n, d_k)
    v = _project(x, w_v, "x", "w_v")  # (..., n, d_v)
    return scaled_dot_product_attention(q, k, v, mask=mask)


def cross_attention(
    x_q: ArrayLike,
    x_kv: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    *,
    mask: ArrayLike | None = None,
) -> Attention:
    """Cross-attention: queries from one sequence (the decoder), keys and values from another (the encoder).

    x_q is (..., n_q, d_q_model), x_kv is (..., n_k, d_kv_model); the two sequences may
    differ in length and width. Returns `(output, weights)` of shapes (..., n_q, d_v) and
    (..., n_q, n_k): row i says where in the source the i-th target token looks.

    >>> x_q = [[1, 0]]                   # one target token
    >>> x_kv = [[1, 0, 0], [0, 1, 0]]    # two source tokens
    >>> w_q = [[2, 0], [0, 2]]
    >>> w_k = [[2, 0], [0, 2], [0, 0]]
    >>> w_v = [[1], [0], [0]]
    >>> output, weights = cross_attention(x_q, x_kv, w_q, w_k, w_v)
    >>> weights.round(2)
    array([[0.94, 0.06]])
    """
    _check_weights(w_q, w_k)
    q = _project(x_q, w_q, "x_q", "w_q")  # (..., n_q, d_k)
    k = _project(x_kv, w_k, "x_kv", "w_k")  # (..., n_k, d_k)
    v = _project(x_kv, w_v, "x_kv", "w_v")  # (..., n_k, d_v)
    return scaled_dot_product_attention(q, k, v, mask=mask)
