"""`attention_output`'s fastest path: keys in blocks, and softmax without the row maximum, when the
scores are known to be small.

softmax code subtracts each row's maximum before exp only to keep exp in range; the weights are the
same for any one number subtracted from a whole row (its factor cancels), zero included. By
Cauchy–Schwarz every score |q_i·k_j|·scale is at most scale·maxᵢ‖q_i‖·maxⱼ‖k_j‖, over every head
and batch entry. When that bound is at most 30, every exp(score) lies in [e^-30, e^30] ≈ [1e-13,
1e13], far inside float32's normal range: none overflows, no row's sum can underflow to 0, and the
two passes the maximum costs (finding it, subtracting it) are not needed.

FlashAttention also takes the keys a block at a time, but keeps each row's running maximum and
rescales the output and sum so far by exp(m_old - m_new) whenever a block raises it. With the shift
fixed at 0 nothing needs rescaling: each key block adds exp(scores)·v to its rows' outputs and the
row sums of exp(scores) to their running sums, and the output is divided by the sums at the end. A
block of 512 query rows × 512 keys (1 MiB of float32 scores) is the same size whatever n is, about
one core's L2 cache.

`qkv._kernel` is the path for everything else: weights to return, a score bound above 30 (the
bound, not the actual scores), entries of v too large or too small, v with batch dims of its own.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from qkv._float16 import in_work_dtype
from qkv._inputs import AttentionInputs, restore_v_scale
from qkv._magnitudes import longest_row
from qkv._threads import run_blocks
from qkv.masks import causal_block_hidden

SCORE_BOUND = 30.0  # exp(±30) ≈ 1e±13: some 25 orders of magnitude inside float32's normal range
ROWS, CAUSAL_ROWS, KEYS = 512, 256, 512  # query rows and keys per block; causal: thinner diagonal blocks


def score_bound(q: np.ndarray, k: np.ndarray, scale: float) -> float:
    """scale·maxᵢ‖q_i‖·maxⱼ‖k_j‖ over every head and batch entry: no score |q_i·k_j|·scale is larger (Cauchy–Schwarz)."""
    return scale * longest_row(q) * longest_row(k)


def applies(inputs: AttentionInputs) -> bool:
    """Whether `output_in_key_blocks` gives these inputs the row-maximum path's output, to rounding.

    Every score must be within ±SCORE_BOUND, and q·scale finite; exp(bound)·|v|·n_k, the largest a
    running sum can reach, within the dtype; and exp(-bound)·|v|, the smallest product that counts,
    at least 1/eps times the dtype's smallest normal number, so no product loses precision that the
    row-maximum path would keep.
    """
    q, k, v = inputs.q, inputs.k, inputs.v
    v_apart = inputs.batch_shape != np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    if q.size == 0 or v.size == 0 or inputs.v_scale != 1.0 or v_apart:
        return False  # nothing to compute, huge values, or v with batch dims of its own
    bound = inputs.scale * inputs.q_longest * inputs.k_longest  # score_bound, from the sizes found with the checks
    info = np.finfo(inputs.work_dtype)
    if not bound <= SCORE_BOUND:  # also NaN
        return False
    if inputs.scale > 1 and max(float(q.max()), -float(q.min())) * inputs.scale >= float(info.max):
        return False  # q·scale would overflow where q·kᵀ·scale does not
    fits = inputs.v_largest * inputs.n_k * math.exp(bound) < float(info.max) / 2  # the running sums of exp(scores)·v
    keeps_precision = inputs.v_smallest_nonzero * math.exp(-bound) > float(info.tiny) / float(info.eps)  # the smallest products
    return fits and keeps_precision


def output_in_key_blocks(inputs: AttentionInputs) -> np.ndarray:
    """softmax(q·kᵀ·scale)·v for inputs `applies` accepts, shape (..., n_q, d_v); no n×n array. float16 blocks of
    q, k and v are widened to float32 as they are used, and each block's output rounded to float16 when it is done."""
    q, k, v = inputs.q, inputs.k, inputs.v
    n_q, n_k, d_k, d_v = inputs.n_q, inputs.n_k, q.shape[-1], v.shape[-1]
    batch = inputs.batch_shape
    q_heads = np.broadcast_to(q, batch + q.shape[-2:])  # (..., n_q, d_k); scaled a block of rows at a time below
    k_heads = np.broadcast_to(k, batch + k.shape[-2:])
    v_heads = np.broadcast_to(v, batch + v.shape[-2:])
    mask = None if inputs.mask is None else np.atleast_2d(inputs.mask)  # a 1-D mask is one row for every query
    mask = None if mask is None else np.broadcast_to(mask, batch + mask.shape[-2:])  # (..., n_q or 1, n_k)
    output = np.empty(batch + (n_q, d_v), dtype=inputs.dtype)  # float16: each block's float32 sums rounded once, at its end
    widen = inputs.dtype != inputs.work_dtype
    rows = min(n_q, CAUSAL_ROWS if inputs.is_causal else ROWS)
    # A block of fewer rows takes more keys, up to the same ROWS·KEYS scores: one query (decoding) takes 2¹⁸ keys at
    # once, a few matrix products instead of a Python loop over 512-key blocks.
    keys = min(n_k, max(KEYS, ROWS * KEYS // rows))
    buffers = threading.local()  # each thread's scaled queries, scores and partial output, reused block after block

    def one_block(head: tuple[int, ...], r0: int) -> None:
        r1 = min(r0 + rows, n_q)
        if getattr(buffers, "scores", None) is None:
            buffers.queries = np.empty((rows, d_k), inputs.work_dtype)
            buffers.scores = np.empty(rows * keys, inputs.work_dtype)
            buffers.partial = np.empty((rows, d_v), inputs.work_dtype)
            buffers.sums = np.empty((rows, d_v), inputs.work_dtype) if widen else None  # float16: the block's output
            buffers.keys = np.empty(keys * max(d_k, d_v), inputs.work_dtype) if widen else None  # float16: k or v widened
        queries = in_work_dtype(q_heads[head][r0:r1], buffers.queries)
        queries = np.multiply(queries, inputs.scale, out=buffers.queries[: r1 - r0])  # finite: `applies` checked
        out = buffers.sums[: r1 - r0] if widen else output[head][r0:r1]  # (rows, d_v): the sum of exp(scores)·v
        sums = np.zeros((r1 - r0, 1), inputs.work_dtype)  # (rows, 1): the sum of exp(scores)
        k_end = min(r1, n_k) if inputs.is_causal else n_k  # causal: keys after r1 - 1 are hidden from every row
        with np.errstate(under="ignore"):
            for c0 in range(0, k_end, keys):
                c1 = min(c0 + keys, k_end)
                scores = buffers.scores[: (r1 - r0) * (c1 - c0)].reshape(r1 - r0, c1 - c0)
                np.matmul(queries, in_work_dtype(k_heads[head][c0:c1], buffers.keys).T, out=scores)  # (rows, d_k) @ (d_k, keys)
                if mask is not None:
                    rows_mask = mask[head][r0:r1] if mask.shape[-2] > 1 else mask[head]
                    np.copyto(scores, -np.inf, where=~rows_mask[:, c0:c1])
                elif inputs.is_causal and c1 > r0 + 1:  # row i hides keys i+1 …, so no row hides a key before r0 + 1
                    start = max(r0 + 1 - c0, 0)
                    np.copyto(scores[:, start:], -np.inf, where=causal_block_hidden(r1 - r0, c1 - c0 - start, r0 - c0 - start))
                np.exp(scores, out=scores)  # within (0, e^30]; exp(-inf) = 0 takes a hidden key out
                sums += scores.sum(axis=-1, keepdims=True)
                partial = out if c0 == 0 else buffers.partial[: r1 - r0]
                np.matmul(scores, in_work_dtype(v_heads[head][c0:c1], buffers.keys), out=partial)  # (rows, keys) @ (keys, d_v)
                if c0:
                    out += partial
            out *= 1.0 / sums  # each row has a visible key whose exp is at least e^-30: never 0
            if widen:
                output[head][r0:r1] = out  # rounded to float16 once

    blocks = [(head, r0) for head in np.ndindex(batch) for r0 in range(0, n_q, rows)]
    run_blocks(blocks, lambda block: one_block(*block), scores=math.prod(batch) * n_q * n_k)
    return restore_v_scale(output, inputs)
