"""The fast path of `scaled_dot_product_attention`, and of `attention_output` when its faster one
(qkv/_output_blocks.py) does not apply: one cache-sized block of query rows of one head at a time.

`qkv.attention.plain_attention` is the same computation written as the article's five steps; the
tests hold the two equal. This one gets its speed from three things:

- Cache-sized blocks. A block of rows of one head goes through all five steps while its scores
  are in the CPU's cache (4 MiB), instead of streaming the whole n×n matrix from memory once
  per step. Blocks never span heads, so a (batch, heads, n, d) input costs what its heads cost
  one by one.
- Causal block skipping, as FlashAttention does. With ``is_causal=True`` query i sees keys
  0..i: a block of rows r0..r1 needs only keys 0..r1, and the keys after them are never
  multiplied (their weights are 0). Summed over the blocks that is about half the work.
- No weights where none are asked for (`attention_output` when the score bound of
  qkv/_output_blocks.py passes 30, or v is too large or too small for that path). A block's scores
  go into a 2¹⁸-number buffer of the thread's own, reused block after block, so nothing n×n is
  written to memory; and a row's d_v outputs are divided by its sum instead of its n weights
  (unless exp·v could overflow).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from qkv._float16 import float16_to_float32, in_work_dtype, weights_to_float16
from qkv._inputs import AttentionInputs, restore_v_scale
from qkv._threads import run_blocks
from qkv.masks import causal_block_hidden

# Scores per block: 2²⁰ float32 numbers (4 MiB), well inside the L3 cache. Smaller blocks fit L2 but
# need more matrix products, and each one wakes BLAS's threads: on a busy machine that costs more.
_BLOCK_ELEMENTS = 1 << 20
_OUTPUT_BLOCK_ELEMENTS = 1 << 18  # without weights: 1 MiB of float32 scores per thread, reused for every block
_MIN_BLOCK_ROWS = 32  # BLAS is slow on thinner matrices


def attention_kernel(inputs: AttentionInputs, keep_weights: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """(output, weights) of checked inputs; weights have the batch dims of q, k and the mask, output those of v too.

    With ``keep_weights=False`` the weights are None: each block's weights live only in a small buffer
    of the thread that computes them, and no n×n array is made (what PyTorch's fused kernels return),
    unless v has batch dims of its own (then the weights are made as with ``keep_weights=True``).
    The output is the same to rounding (the blocks are smaller, so BLAS may sum in another order).
    """
    q, k, v = inputs.q, inputs.k, inputs.v
    n_q, n_k, d_v = inputs.n_q, inputs.n_k, v.shape[-1]
    mask_batch = () if inputs.mask is None else inputs.mask.shape[:-2]
    weights_batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], mask_batch)
    # v adds batch dims of its own only in unusual calls: then the weights are made first and multiplied after.
    v_apart = inputs.batch_shape != weights_batch
    returned_weights = keep_weights
    keep_weights = keep_weights or v_apart
    # float16 with v apart: the weights stay in float32 until they have met v, then are rounded for returning.
    weights_dtype = inputs.work_dtype if v_apart else inputs.dtype
    weights = np.empty(weights_batch + (n_q, n_k), dtype=weights_dtype) if keep_weights else None  # the only n×n array
    # float16: each block's output rounded once, at its end (with v apart: all of it, after the product with v)
    output = np.empty(inputs.batch_shape + (n_q, d_v), dtype=inputs.work_dtype if v_apart else inputs.dtype)
    widen = inputs.dtype != inputs.work_dtype  # float16: q's rows, and k and v a head at a time, widened to float32
    heads = list(np.ndindex(weights_batch))  # one index per (batch, head) whose weights are computed
    q_heads = np.broadcast_to(q, weights_batch + q.shape[-2:])  # (..., n_q, d_k); scaled a block of rows at a time
    k_heads = np.broadcast_to(k, weights_batch + k.shape[-2:])
    v_heads = None if v_apart else np.broadcast_to(v, weights_batch + v.shape[-2:])
    mask = None if inputs.mask is None else np.atleast_2d(inputs.mask)  # a 1-D mask is one row for every query
    mask = None if mask is None else np.broadcast_to(mask, weights_batch + mask.shape[-2:])  # (..., n_q or 1, n_k)
    rows = block_rows(n_q, n_k, inputs.is_causal, keep_weights)
    if keep_weights and inputs.work_dtype != inputs.dtype:  # float16: a float32 buffer and the rounding's temporaries
        rows = max(_MIN_BLOCK_ROWS, rows // 4)  # keep them at a fraction of the float16 weights
    buffers = threading.local()  # each thread's scaled queries (and scores, without weights), reused block after block
    # Without weights, the division by each row's sum can wait for the output (d_v numbers, not k_end),
    # unless exp·v, whose weights sum to at most n_k, could pass the dtype's maximum first.
    normalise_after = (weights is None and v_heads is not None and v.size > 0
                       and inputs.v_largest / inputs.v_scale * n_k < float(np.finfo(inputs.work_dtype).max) / 2)

    def block_scores(head: tuple[int, ...], r0: int, r1: int, k_end: int) -> tuple[np.ndarray, np.ndarray | None]:
        """Where block (head, r0:r1) computes its scores, and where its weights go (None: nowhere)."""
        if weights is None:
            if getattr(buffers, "scores", None) is None:
                buffers.scores = np.empty(rows * n_k, inputs.work_dtype)
            return buffers.scores[: (r1 - r0) * k_end].reshape(r1 - r0, k_end), None
        target = weights[head][r0:r1, :k_end]  # float32/float64: the scores become the weights in place
        return (target if weights.dtype == inputs.work_dtype else np.empty(target.shape, inputs.work_dtype)), target

    def queries(head: tuple[int, ...], r0: int, r1: int) -> np.ndarray:
        """q's rows r0:r1 of one head in the work dtype, times the scale unless it is > 1, in the thread's buffer."""
        if getattr(buffers, "queries", None) is None:
            buffers.queries = np.empty((min(rows, n_q), q.shape[-1]), inputs.work_dtype)
        rows_q = in_work_dtype(q_heads[head][r0:r1], buffers.queries)
        if inputs.scale > 1:  # a scale > 1 goes on the scores: q·scale may overflow where q·kᵀ·scale does not
            return rows_q
        scaled: np.ndarray = np.multiply(rows_q, inputs.scale, out=buffers.queries[: r1 - r0])
        return scaled

    def keys_values(head: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray | None]:
        """k and v of one head in the work dtype: float16 widened into the thread's buffers, kept while its blocks
        follow one another (the blocks are in order of heads)."""
        if not widen:
            return k_heads[head], None if v_heads is None else v_heads[head]
        if getattr(buffers, "head", None) != head:
            buffers.k = float16_to_float32(k_heads[head], getattr(buffers, "k", None))
            buffers.v = None if v_heads is None else float16_to_float32(v_heads[head], getattr(buffers, "v", None))
            buffers.head = head
        return buffers.k, buffers.v

    def one_block(head: tuple[int, ...], r0: int) -> None:
        r1 = min(r0 + rows, n_q)
        k_end = min(r1, n_k) if inputs.is_causal else n_k  # causal: keys after r1 - 1 are hidden from every row
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # overflow shows as the row maximum
            scores, target = block_scores(head, r0, r1, k_end)
            k_head, v_head = keys_values(head)
            np.matmul(queries(head, r0, r1), k_head[:k_end].T, out=scores)  # (rows, d_k) @ (d_k, k_end)
            if inputs.scale > 1:  # after the product: q·scale may overflow where q·kᵀ·scale does not
                scores *= inputs.scale
            rows_mask = None if mask is None else mask[head][r0:r1] if mask.shape[-2] > 1 else mask[head]
            _hide_masked_keys(scores, inputs, None if rows_mask is None else rows_mask[:, :k_end], r0)
            sums = _exp_rows(scores)  # (rows, 1)
            if normalise_after and v_head is not None:  # the output alone: divide its d_v columns, not the block's k_end
                _block_output(scores, v_head[:k_end], output[head][r0:r1], buffers, 1.0 / sums)
                return
            scores *= 1.0 / sums  # the sum is >= 1: never 0/0; a product is cheaper than a quotient
            if target is not None and scores.dtype != target.dtype:  # float16: rounded once, while the block is in the cache
                weights_to_float16(scores, target)
            if weights is not None and k_end < n_k:
                weights[head][r0:r1, k_end:] = 0
            if v_head is not None:
                _block_output(scores, v_head[:k_end], output[head][r0:r1], buffers, None)

    # Two Python threads, each taking the next block, with OpenBLAS on one thread for the call; one
    # thread as before where that cannot be done (qkv/_threads.py).
    blocks = [(head, r0) for head in heads for r0 in range(0, n_q, rows)]
    run_blocks(blocks, lambda block: one_block(*block), scores=len(heads) * n_q * n_k)
    if v_apart and weights is not None:
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            np.matmul(weights, float16_to_float32(v) if widen else v, out=output)  # (..., n_q, n_k) @ (..., n_k, d_v)
        weights = _rounded(weights, inputs.dtype) if returned_weights else None
    return restore_v_scale(output, inputs), weights


def _block_output(weights: np.ndarray, v: np.ndarray, out: np.ndarray, buffers: threading.local,
                  factors: np.ndarray | None) -> None:
    """out[...] = weights·v (rows, k_end) @ (k_end, d_v), times each row's factor if given; a float16 `out` through
    a float32 buffer of the thread's, rounded once."""
    if out.dtype == weights.dtype:
        np.matmul(weights, v, out=out)
        if factors is not None:
            out *= factors
        return
    if getattr(buffers, "output", None) is None or buffers.output.shape[0] < out.shape[0]:
        buffers.output = np.empty(out.shape, weights.dtype)
    rows = np.matmul(weights, v, out=buffers.output[: out.shape[0]])
    if factors is not None:
        rows *= factors
    out[...] = rows  # float32 -> float16, within v's range


def _rounded(weights: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """The weights in the results' dtype: float16 rounded a row block at a time (qkv/_float16.py), others as they are."""
    if weights.dtype == dtype:
        return weights
    rounded = np.empty(weights.shape, dtype)
    rows = max(1, _BLOCK_ELEMENTS // max(1, weights.shape[-1]))
    for head in np.ndindex(weights.shape[:-2]):
        for r0 in range(0, weights.shape[-2], rows):
            weights_to_float16(weights[head][r0:r0 + rows], rounded[head][r0:r0 + rows])
    return rounded


def _hide_masked_keys(scores: np.ndarray, inputs: AttentionInputs, mask: np.ndarray | None, r0: int) -> None:
    """Set the scores of keys that query rows r0.. may not see to -inf: exp(-inf) = 0 takes them out of the sum."""
    if mask is not None:
        np.copyto(scores, -np.inf, where=~mask)
    elif inputs.is_causal and r0 < scores.shape[-1] - 1:  # row i hides keys i+1 … (those before k_end)
        # Rows r0… see every key before r0: only the square from key r0 on holds hidden keys.
        diagonal = scores[:, r0:]  # (rows, k_end - r0): query r0 + i against key r0 + j
        np.copyto(diagonal, -np.inf, where=causal_block_hidden(*diagonal.shape, 0))


def _exp_rows(scores: np.ndarray) -> np.ndarray:
    """exp(scores - row maximum) in place, and each row's sum (rows, 1): softmax before its division.
    A row whose maximum is not finite overflowed."""
    row_max = scores.max(axis=-1, keepdims=True)  # (rows, 1); NaN and +inf show here
    if not np.isfinite(row_max).all():
        raise overflow_error(scores.dtype)
    np.subtract(scores, row_max, out=scores)  # -1e308 - 1e308 = -inf is right: its weight is 0
    np.exp(scores, out=scores)  # every exponent <= 0: no overflow, the row's largest is exp(0) = 1
    sums: np.ndarray = scores.sum(axis=-1, keepdims=True)  # >= 1: the maximum's own exp(0)
    return sums


def overflow_error(dtype: np.dtype[Any]) -> ValueError:
    return ValueError(f"q·kᵀ·scale overflowed to inf/NaN in {dtype}; the inputs are too large for this dtype")


def block_rows(n_q: int, n_k: int, is_causal: bool, keep_weights: bool = True) -> int:
    """Query rows per block: scores of a cache's size, and with a causal mask at most n_q/8, so that the
    diagonal blocks, which are computed whole, add only 1/16 to the half that is needed. Without
    weights to write out, a block's scores are about one core's L2 cache (1 MiB)."""
    rows = max(_MIN_BLOCK_ROWS, (_BLOCK_ELEMENTS if keep_weights else _OUTPUT_BLOCK_ELEMENTS) // n_k)
    return max(_MIN_BLOCK_ROWS, min(rows, n_q // 8)) if is_causal else rows


def causal_work_share(n_q: int, n_k: int) -> float:
    """The share of the n_q·n_k scores the causal kernel computes, blocks of rows included.

    Half the square, plus the part of each diagonal block above the diagonal: at n = 1,024 the
    blocks have 128 rows, and 1/2 + 128/(2·1,024) = 0.5625.

    >>> causal_work_share(1024, 1024)
    0.5625
    """
    rows = block_rows(n_q, n_k, is_causal=True)
    computed = sum(min(min(r0 + rows, n_q), n_k) * (min(r0 + rows, n_q) - r0) for r0 in range(0, n_q, rows))
    return computed / (n_q * n_k)

