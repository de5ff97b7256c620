"""Scaled dot-product attention: Attention(Q, K, V) = softmax(Q·Kᵀ / √d_k) · V, step by step."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from qkv._checks import as_matrices, broadcast_batch_shape, check_computed_finite, check_not_empty, check_same_d_k, check_scale
from qkv._float16 import weights_to_float16
from qkv._inputs import AttentionInputs, attention_inputs

# Rows of scores handled at once: 2¹⁶ numbers (256 KiB of float32), so that the softmax passes over a block
# of rows run in the CPU's cache instead of streaming the whole n×n matrix from memory each time.
_BLOCK_ELEMENTS = 1 << 16
# float16 is computed in float32 chunks of n_q/8 rows, but at least this many (BLAS is slow on thin matrices).
_MIN_CHUNK_ROWS = 128


class Attention(NamedTuple):
    """What `scaled_dot_product_attention` returns; it unpacks as `output, weights = ...`."""

    output: np.ndarray  # (..., n_q, d_v): one new vector per query
    weights: np.ndarray  # (..., n_q, n_k): row i says how much of each value goes into output i


def attention_scores(q: ArrayLike, k: ArrayLike, *, scale: float | None = None) -> np.ndarray:
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
    check_not_empty(q, "q")
    check_not_empty(k, "k")
    check_same_d_k(q, k)
    broadcast_batch_shape(q=q, k=k)
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else check_scale(scale)
    work_dtype = np.promote_types(q.dtype, np.float32)  # float16 is multiplied in float32, as in PyTorch
    with np.errstate(over="ignore", invalid="ignore"):  # overflow becomes an error just below
        q_scaled = q.astype(work_dtype) * scale  # scaling the n×d queries costs less than the n×n scores
        scores: np.ndarray = (q_scaled @ np.swapaxes(k.astype(work_dtype, copy=False), -1, -2)).astype(q.dtype, copy=False)
    check_computed_finite(scores, "q·kᵀ·scale")  # (..., n_q, d_k) @ (..., d_k, n_k) -> (..., n_q, n_k)
    return scores


def scaled_dot_product_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    is_causal: bool = False,
    enable_gqa: bool = False,
) -> Attention:
    """softmax(Q·Kᵀ · scale) · V; returns `(output, weights)` as a named tuple.

    Shapes: q (..., n_q, d_k), k (..., n_k, d_k), v (..., n_k, d_v) -> output (..., n_q, d_v)
    and weights (..., n_q, n_k). Leading batch/head dimensions broadcast as in numpy. Each
    row of `weights` sums to 1 and says how much of each value vector goes into that
    query's output. The options are keyword-only and mean what they mean in PyTorch's
    `torch.nn.functional.scaled_dot_product_attention`:

    - `mask`: boolean, broadcasts to (..., n_q, n_k); True means "may attend".
    - `scale`: defaults to 1/√d_k.
    - `is_causal=True`: query i sees keys 0..i (aligned at the top left, as in PyTorch,
      when n_q != n_k). Not together with `mask`.
    - `enable_gqa=True`: grouped-query attention. k and v may have fewer heads (axis -3)
      than q, as long as q's heads are a multiple of theirs; K/V head h serves the query
      heads h·g … h·g + g - 1, g = heads_q / heads_kv.

    Float inputs keep their dtype (float32 stays float32), ints and lists become float64;
    float16 is computed in float32 and the results are rounded to float16 at the end (the output
    from the float32 weights, so it is not exactly the returned float16 weights @ v).

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

    >>> scaled_dot_product_attention(q, k, v, is_causal=True).weights.round(2)
    array([[1.  , 0.  ],
           [0.36, 0.64]])
    """
    inputs = attention_inputs(q, k, v, mask=mask, scale=scale, is_causal=is_causal, enable_gqa=enable_gqa)
    q, k, v = inputs.q, inputs.k, inputs.v
    n_q, n_k, d_v = inputs.n_q, inputs.n_k, v.shape[-1]
    # The weights get the batch dims of q, k and the mask; v may add more (it then only broadcasts).
    mask_batch = () if inputs.mask is None else inputs.mask.shape[:-2]
    weights_batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], mask_batch)
    weights = np.empty(weights_batch + (n_q, n_k), dtype=inputs.dtype)  # the only n×n array
    output = np.empty(inputs.batch_shape + (n_q, d_v), dtype=inputs.dtype)

    q_scaled = q * inputs.scale  # (..., n_q, d_k): scale the n×d queries, not the n×n scores
    k_t = np.swapaxes(k, -1, -2)  # (..., d_k, n_k)
    # float32/float64: the scores are computed straight into the weights array and turned into
    # weights in place. float16: a float32 buffer of an eighth of the rows (at least 128) at a time.
    in_place = inputs.work_dtype == inputs.dtype
    chunk = max(1, n_q) if in_place else max(_MIN_CHUNK_ROWS, -(-n_q // 8))
    rows = max(1, _BLOCK_ELEMENTS // max(1, math.prod(weights_batch) * n_k))  # rows per cache-sized block
    buffer = None if in_place else np.empty(weights_batch + (min(chunk, n_q), n_k), inputs.work_dtype)
    for c0 in range(0, n_q, chunk):
        c1 = min(c0 + chunk, n_q)
        scores = weights[..., c0:c1, :] if buffer is None else buffer[..., : c1 - c0, :]
        with np.errstate(over="ignore", invalid="ignore"):  # overflow shows as a non-finite row maximum
            np.matmul(q_scaled[..., c0:c1, :], k_t, out=scores)  # (..., n_q, d_k) @ (..., d_k, n_k) -> (..., n_q, n_k)
        for r0 in range(0, c1 - c0, rows):  # one cache-sized block of rows at a time
            block = scores[..., r0 : r0 + rows, :]
            _hide_masked_keys(block, inputs, c0 + r0, c0 + r0 + block.shape[-2])
            _softmax_rows(block)
            if not in_place:  # rounded to float16 once, while the block is in the cache
                weights_to_float16(block, weights[..., c0 + r0 : c0 + r0 + block.shape[-2], :])
        with np.errstate(over="ignore", invalid="ignore"):  # checked below
            if in_place:
                np.matmul(scores, v, out=output[..., c0:c1, :])  # (..., n_q, n_k) @ (..., n_k, d_v) -> (..., n_q, d_v)
            else:
                output[..., c0:c1, :] = scores @ v
    check_computed_finite(output, "weights·v")
    return Attention(output, np.broadcast_to(weights, inputs.batch_shape + (n_q, n_k)))


def _hide_masked_keys(block: np.ndarray, inputs: AttentionInputs, r0: int, r1: int) -> None:
    """Set the scores of keys that query rows r0..r1 may not see to -inf: exp(-inf) = 0 takes them out of the sum."""
    if inputs.mask is not None:
        mask = inputs.mask
        rows_mask = mask if mask.ndim < 2 or mask.shape[-2] == 1 else mask[..., r0:r1, :]
        np.copyto(block, -np.inf, where=~rows_mask)
    elif inputs.is_causal and r0 < inputs.n_k - 1:  # row i hides keys i+1 …; rows i >= n_k - 1 see them all
        hidden = np.arange(inputs.n_k) > np.arange(r0, r1)[:, None]  # (rows, n_k)
        np.copyto(block, -np.inf, where=hidden)


def _softmax_rows(scores: np.ndarray) -> None:
    """softmax along the last axis, in place; a row whose maximum is not finite overflowed."""
    row_max = scores.max(axis=-1, keepdims=True)  # (..., rows, 1); NaN and +inf show here
    if not np.isfinite(row_max).all():
        raise ValueError(
            f"q·kᵀ·scale overflowed to inf/NaN in {scores.dtype}; the inputs are too large for this dtype"
        )
    with np.errstate(over="ignore"):  # -1e308 - 1e308 = -inf is right: its weight is 0
        np.subtract(scores, row_max, out=scores)
    np.exp(scores, out=scores)  # every exponent <= 0: no overflow, the row's largest is exp(0) = 1
    scores *= 1.0 / scores.sum(axis=-1, keepdims=True)  # the sum is >= 1: never 0/0; a product is cheaper than a quotient

