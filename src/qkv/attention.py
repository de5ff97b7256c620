"""Scaled dot-product attention: Attention(Q, K, V) = softmax(Q·Kᵀ / √d_k) · V, step by step."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from qkv import _decode as decode
from qkv import _output_blocks as output_blocks
from qkv._checks import as_matrices, broadcast_batch_shape, check_computed_finite, check_not_empty, check_same_d_k, check_scale
from qkv._float16 import float16_to_float32
from qkv._inputs import AttentionInputs, attention_inputs, checked_values, restore_v_scale, unchecked_inputs, ungroup_heads
from qkv._kernel import attention_kernel
from qkv.masks import causal_mask
from qkv.softmax import softmax


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
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # overflow becomes an error just below
        # Scaling the n×d queries costs less than the n×n scores, but a scale > 1 could overflow q·scale
        # where q·kᵀ·scale does not: that one goes on the scores.
        q_work = q.astype(work_dtype) * scale if scale <= 1 else q.astype(work_dtype)
        products: np.ndarray = q_work @ np.swapaxes(k.astype(work_dtype, copy=False), -1, -2)  # (..., n_q, n_k)
        if scale > 1:
            products *= scale
        scores = products.astype(q.dtype, copy=False)
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
      heads h·g … h·g + g - 1, g = heads_q / heads_kv. Each K/V head is read where it lies
      by its group, not copied (unless k and v have different numbers of heads).

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
    output, weights = attention_kernel(inputs)  # qkv/_kernel.py: plain_attention below, in cache-sized blocks on every core
    assert weights is not None  # kept unless asked not to
    check_computed_finite(output, "weights·v")
    return Attention(ungroup_heads(output, inputs), _weights_view(weights, inputs))


def _weights_view(weights: np.ndarray, inputs: AttentionInputs) -> np.ndarray:
    """The weights (..., n_q, n_k) as returned: the heads as the caller counts them, a read-only view broadcast to
    the batch shape of the results."""
    weights = ungroup_heads(weights, inputs)
    return np.broadcast_to(weights, inputs.heads_batch_shape + weights.shape[-2:])


def attention_output(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    is_causal: bool = False,
    enable_gqa: bool = False,
) -> np.ndarray:
    """The output of `scaled_dot_product_attention` alone, shape (..., n_q, d_v), as PyTorch's returns it.

    Same options, same checks, same output to rounding; but the scores of a block of query rows
    are used and overwritten by the next block while they are in the cache, so no (..., n_q, n_k)
    array is made (unless v has batch dimensions that q and k do not: then the weights are made
    first and multiplied after). When every score is known to lie within ±30 (from the lengths of
    the longest query and key), the keys are taken in blocks too and exp needs no row maximum
    (qkv/_output_blocks.py). At decode (at most 16 query rows, no causal mask) q·kᵀ and weights·v are each one
    product over every head, and NaN, inf and overflow are found in what they compute (qkv/_decode.py).
    Call this when only the output is needed: it is what a model runs.

    >>> q = [[2, 0, 1], [0, 2, 1]]
    >>> k = [[1, 1, 0], [0, 1, 1]]
    >>> v = [[1, 0, 1], [0, 1, 0]]
    >>> attention_output(q, k, v).round(2)
    array([[0.64, 0.36, 0.64],
           [0.36, 0.64, 0.36]])
    """
    inputs = unchecked_inputs(q, k, v, mask=mask, scale=scale, is_causal=is_causal, enable_gqa=enable_gqa)
    output = decode.decode_output(inputs) if decode.applies(inputs) else None  # a few queries: qkv/_decode.py
    if output is not None:
        return ungroup_heads(output, inputs)  # finite
    output = _checked_output(checked_values(inputs))
    check_computed_finite(output, "weights·v")
    return ungroup_heads(output, inputs)


def _checked_output(inputs: AttentionInputs) -> np.ndarray:
    """`attention_output` of inputs whose values are checked, shape (..., n_q, d_v)."""
    if output_blocks.applies(inputs):  # every score within ±30: keys in blocks, no row maximum (qkv/_output_blocks.py)
        output = output_blocks.output_in_key_blocks(inputs)  # (..., n_q, d_v)
    else:
        output, _ = attention_kernel(inputs, keep_weights=False)  # (..., n_q, d_v)
    return output


def plain_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    is_causal: bool = False,
    enable_gqa: bool = False,
) -> Attention:
    """`scaled_dot_product_attention` written as the article's five steps, one line each.

    The same arguments, checks and results (the tests hold the two equal, to rounding); the fast
    one computes these steps a cache-sized block of rows at a time on every core and skips the
    keys a causal mask hides. This one is for reading: it makes the whole n×n matrix at each step.

    >>> q = [[2, 0, 1], [0, 2, 1]]
    >>> k = [[1, 1, 0], [0, 1, 1]]
    >>> v = [[1, 0, 1], [0, 1, 0]]
    >>> plain_attention(q, k, v).weights.round(2)
    array([[0.64, 0.36],
           [0.36, 0.64]])
    """
    inputs = attention_inputs(q, k, v, mask=mask, scale=scale, is_causal=is_causal, enable_gqa=enable_gqa)
    # (..., n_q, d_k), (..., n_k, d_k), (..., n_k, d_v); float16 widened whole to float32, the dtype it is computed in
    q, k, v = (float16_to_float32(x) if x.dtype == np.float16 else x for x in (inputs.q, inputs.k, inputs.v))
    visible = causal_mask(max(inputs.n_q, inputs.n_k))[: inputs.n_q, : inputs.n_k] if inputs.is_causal else inputs.mask
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # overflow is reported below
        k_t = np.swapaxes(k, -1, -2)  # (..., d_k, n_k)
        # 1. Q·Kᵀ, 2. scaled by 1/√d_k: a scale < 1 goes on q first, so that q·kᵀ cannot overflow before it shrinks;
        # a scale > 1 on the scores after, so that q·scale cannot overflow where q·kᵀ·scale does not.
        scores = (q * inputs.scale) @ k_t if inputs.scale <= 1 else (q @ k_t) * inputs.scale  # (..., n_q, n_k)
        scores = scores if visible is None else np.where(visible, scores, -np.inf)  # 3. masked keys get -inf
        if not np.isfinite(scores.max(axis=-1)).all():
            raise ValueError(f"q·kᵀ·scale overflowed to inf/NaN in {inputs.dtype}; the inputs are too large for this dtype")
        weights = softmax(scores)  # 4. each row: positive, sums to 1
        output = weights @ v  # 5. (..., n_q, n_k) @ (..., n_k, d_v) -> (..., n_q, d_v)
    output = restore_v_scale(output, inputs)
    check_computed_finite(output, "weights·v")
    with np.errstate(under="ignore"):  # float16: tiny weights round to subnormals or 0, as the dtype rounds
        weights = weights.astype(inputs.dtype)
    return Attention(ungroup_heads(output, inputs), _weights_view(weights, inputs))
