"""`attention_output` at decode: a few query rows against many cached keys, k and v each read once.

At decode (one new query against the n_k keys of a KV cache, qkv/kv_cache.py) the scores are n_q·n_k
numbers and k and v are d·n_k each: the work is reading k and v from memory. The checks of
qkv/_inputs.py (no NaN or inf; the sizes behind the score bound) read them once more, and took several
times as long as the attention. Here q·kᵀ and weights·v are one matrix product each over every head,
softmax subtracts each row's maximum (its n_k scores are few), and the checks come from what is computed:

- A NaN or inf in k gives a NaN or inf score in every query row whose entry it meets is not 0: a NaN or
  +inf shows in the row's maximum, a -inf as a weight of 0.
- A NaN or inf in v gives a NaN or inf output wherever its weight is not 0 (0·inf is NaN too, but a BLAS
  may skip a multiplier of 0).
- So when no entry of the queries multiplied is 0, no weight is 0, and the row maxima and the output are
  finite, k and v are. Otherwise (a query entry of 0; a masked key, a weight that underflowed, a score of
  -inf) k, or k and v, are checked whole.
- float16 k and v are widened to float32 a block of keys at a time, each block's bits checked for inf and NaN
  before it is widened (qkv/_float16.py).

Where anything is not finite (a NaN or inf in the inputs, scores or sums that overflowed), `decode_output`
returns None, and `attention_output` takes the checked path: that names the NaN or inf, refuses the overflow,
or computes what overflowed here (v near the dtype's maximum is shrunk there first).

With grouped-query attention the queries of a group are stacked as the rows of one product with their K/V
head, so each K/V head is read once, not once per query head.

Everything runs in the calling thread, OpenBLAS on one thread. Cutting the heads in two halves for two Python
threads (qkv/_threads.py) was measured side by side at (1, 8, 1, 64) on the 2-core machine, idle: the best of
21 samples took 1.42× one thread's time at n_k = 1,024, 1.18× at 4,096, 1.01× and 1.03× at 8,192 and 16,384,
0.89× at 32,768 (medians 1.59×, 1.26×, 1.08×, 0.97×, 1.01×); on the machine under load, 0.70× and 1.17× at
32,768 in two runs and worse below. Waking the other thread costs more than half of a small call, and at large
n_k one thread already takes about what memory gives. OpenBLAS's own second thread is another matter: on the
idle machine it made the two products at (1, 8, 1, 64), n_k = 1,024 faster (209 µs against 369 µs on one thread,
2026-12-04; on 2026-12-05, OpenBLAS on its SkylakeX kernels, the two threads took 0.94× the time at n_k = 1,024
and 0.98× at 4,096, load average 0.42), but where the other core was busy it cost up to 13× the time, so the
products stay on one thread.

Where the time of a call goes, each step timed back to back and side by side in one process (2026-12-05, the
2-core machine idle, load average 0.39 to 0.48; shares of `attention_output`'s time): at (1, 8, 1, 64) against
n_k = 1,024 float32 keys the two products on one OpenBLAS thread took 0.60 of a call, softmax's passes over the
scores 0.11, `unchecked_inputs` 0.05. At n_k = 64 a call took 37 µs, the products 0.22 of it: some 30 µs a call
do not grow with n_k (q's, the output's and the weights' checks, the thread count, numpy's dispatch of some
twenty small operations). In float16, widening k and v took 0.68 of a call at n_k = 1,024. Widened in four
passes instead of seven and checked on their bits first, float16 calls took 0.66×, 0.62× and 0.65× the time of
the seven-pass widening at n_k = 1,024, 4,096 and 32,768; float32 calls, with one np.errstate instead of two
and the queries scaled as they are cast, 0.98×, 0.99×, 1.00× (old and new code interleaved in one process,
medians of 31 pairs, the same outputs bit for bit; under load, load average 2.6, 0.67×, 0.60×, 0.63× and 0.99×,
1.00×, 1.00×).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from qkv._float16 import widen_if_finite
from qkv._inputs import AttentionInputs
from qkv._threads import one_blas_thread

DECODE_ROWS = 16  # query rows at most: the scores, n_q·n_k, stay small beside k and v, d·n_k each
FLOAT16_BLOCK = 1 << 19  # float16: numbers of k or v widened at a time, over every head (2 MiB of float32)


class _Part(NamedTuple):
    """What the two products of a call take: the scaled queries, k, v, the mask, and the output they write."""

    queries: np.ndarray  # (..., n_q, d_k) in the work dtype, scaled
    k: np.ndarray  # (..., n_k, d_k)
    v: np.ndarray  # (..., n_k, d_v)
    mask: np.ndarray | None  # (..., n_q or 1, n_k)
    output: np.ndarray  # (..., n_q, d_v) in the work dtype: written


def applies(inputs: AttentionInputs) -> bool:
    """Whether `decode_output` takes these (unchecked) inputs: few query rows, no causal mask, nothing empty,
    and a mask, if any, without batch dims beyond q's and k's."""
    if not (0 < inputs.n_q <= DECODE_ROWS and not inputs.is_causal and inputs.q.size > 0 and inputs.v.size > 0):
        return False
    if inputs.mask is None:
        return True
    scores_batch = np.broadcast_shapes(inputs.q.shape[:-2], inputs.k.shape[:-2])
    return np.broadcast_shapes(scores_batch, inputs.mask.shape[:-2]) == scores_batch


def decode_output(inputs: AttentionInputs) -> np.ndarray | None:
    """softmax(q·kᵀ·scale)·v of unchecked inputs, shape (..., n_q, d_v) in inputs.dtype, finite; None where anything
    (inputs, scores, output) is not."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # anything not finite: None, below
        # The queries (..., n_q, d_k) in the work dtype, a few rows checked whole. A scale <= 1 goes on them (it keeps
        # a finite number finite, inf and NaN as they are); a scale > 1 on the scores: q·scale may overflow where
        # q·kᵀ·scale does not
        if inputs.scale <= 1:
            queries = np.multiply(inputs.q, inputs.scale, dtype=inputs.work_dtype)
        else:
            queries = inputs.q.astype(inputs.work_dtype)
        if not np.isfinite(queries).all():
            return None
        batch, mask = inputs.batch_shape, inputs.mask
        if inputs.kv_group > 1:  # grouped-query attention: a group's queries are rows of one product with its K/V head
            queries, mask = _group_as_rows(queries, mask)
            batch = batch[:-1] + (1,)
        output = np.empty(batch + (queries.shape[-2], inputs.v.shape[-1]), inputs.work_dtype)
        # OpenBLAS on one thread: a product of a few rows is limited by memory, not arithmetic, and its second thread
        # cost up to 13× the time where the other core was busy (n_k = 32,768)
        with one_blas_thread():
            finite = _part_output(_Part(queries, inputs.k, inputs.v, mask, output), inputs)
        if not finite:
            return None
        if inputs.kv_group > 1:  # (..., kv_heads, 1, group·n_q, d_v) -> (..., kv_heads, group, n_q, d_v)
            output = output.reshape(inputs.batch_shape + (inputs.n_q, output.shape[-1]))
        if inputs.dtype == inputs.work_dtype:
            return output  # its parts checked it
        result = output.astype(inputs.dtype)  # float16: a tiny output rounds to a subnormal or 0, as the dtype rounds
        return result if np.isfinite(result).all() else None


def _group_as_rows(queries: np.ndarray, mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Grouped queries (..., kv_heads, group, n_q, d_k) with a group's rows one after another,
    (..., kv_heads, 1, group·n_q, d_k) (a view of their copy); the mask to match.

    A mask (..., kv_heads or 1, group or 1, n_q or 1, n_k) that is the same for every row of a group stays as it
    is and broadcasts over the rows; one that differs is spread to every row and copied (booleans, group·n_q·n_k
    per K/V head: few beside k)."""
    *_, group, n_q, d_k = queries.shape
    rows = queries.reshape(queries.shape[:-3] + (1, group * n_q, d_k))
    if mask is None:
        return rows, None
    mask = mask.reshape((1,) * max(0, 4 - mask.ndim) + mask.shape)  # (..., kv_heads or 1, group or 1, n_q or 1, n_k)
    if mask.shape[-3] == mask.shape[-2] == 1:
        return rows, mask
    spread = np.broadcast_to(mask, mask.shape[:-3] + (group, n_q, mask.shape[-1]))
    return rows, spread.reshape(mask.shape[:-3] + (1, group * n_q, mask.shape[-1]))


def _part_output(part: _Part, inputs: AttentionInputs) -> bool:
    """Writes part.output (in the work dtype); whether everything the products saw was finite. Runs inside
    `decode_output`'s one np.errstate: an overflow or a NaN is found in what is computed, not warned of."""
    scores = _scores(part, inputs)  # (..., n_q, n_k)
    if scores is None:
        return False
    sums = _exp_rows(scores, part.mask)  # (..., n_q, 1); the scores become exp(score - row maximum)
    if not _weighted_values(scores, part, inputs):
        return False
    part.output[...] *= 1.0 / sums  # NaN in every row whose maximum was NaN or inf
    return bool(np.isfinite(part.output).all()) and _unseen_finite(part, scores, inputs)


def _unseen_finite(part: _Part, weights: np.ndarray, inputs: AttentionInputs) -> bool:
    """Whether k and v are finite where the finite row maxima and output need not have shown it.

    A NaN or inf in k makes a row's maximum NaN or inf, or (-inf) a weight of 0, unless the query entry
    it meets is 0; one in v makes the output NaN or inf unless its weight is 0. float16 blocks were
    checked as they were widened.
    """
    if inputs.dtype == np.float16:
        return True
    every_weight = bool(weights.all())  # else a masked key, an exp that underflowed, or a score of -inf
    k_shown = every_weight and bool(part.queries.all())
    return (k_shown or bool(np.isfinite(part.k).all())) and (every_weight or bool(np.isfinite(part.v).all()))


def _scores(part: _Part, inputs: AttentionInputs) -> np.ndarray | None:
    """q·kᵀ·scale (..., n_q, n_k) in the work dtype; None for a float16 k holding inf or NaN."""
    scores: np.ndarray
    if inputs.dtype != np.float16:
        scores = part.queries @ np.swapaxes(part.k, -1, -2)  # (..., n_q, d_k) @ (..., d_k, n_k)
    else:
        batch = np.broadcast_shapes(part.queries.shape[:-2], part.k.shape[:-2])
        scores = np.empty(batch + (part.queries.shape[-2], inputs.n_k), inputs.work_dtype)
        for c0, block in _widened_blocks(part.k):  # (..., keys, d_k) in float32
            if block is None:
                return None
            np.matmul(part.queries, np.swapaxes(block, -1, -2), out=scores[..., c0:c0 + block.shape[-2]])
    if inputs.scale > 1:
        scores *= inputs.scale
    return scores


def _exp_rows(scores: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """exp(scores - row maximum) in place, masked keys 0; each row's sum (..., n_q, 1), at least 1. A row whose
    maximum is NaN or inf (a NaN anywhere in a row is its maximum) becomes NaN, and so does its sum."""
    if mask is not None:
        np.copyto(scores, -np.inf, where=~mask)  # mask (..., n_q or 1, n_k); every row keeps a key (checked)
    scores -= scores.max(axis=-1, keepdims=True)  # (..., n_q, 1)
    np.exp(scores, out=scores)
    sums: np.ndarray = scores.sum(axis=-1, keepdims=True)
    return sums


def _weighted_values(weights: np.ndarray, part: _Part, inputs: AttentionInputs) -> bool:
    """part.output = weights·v (..., n_q, d_v) in the work dtype; False for a float16 v holding inf or NaN."""
    if inputs.dtype != np.float16:
        np.matmul(weights, part.v, out=part.output)  # (..., n_q, n_k) @ (..., n_k, d_v)
        return True
    for c0, block in _widened_blocks(part.v):  # (..., keys, d_v) in float32
        if block is None:
            return False
        product = weights[..., c0:c0 + block.shape[-2]] @ block  # (..., n_q, keys) @ (..., keys, d_v)
        if c0:
            part.output[...] += product
        else:
            part.output[...] = product
    return True


def _widened_blocks(array: np.ndarray) -> Iterator[tuple[int, np.ndarray | None]]:
    """(first key, the block of keys (..., keys, d) widened to float32) over every head, FLOAT16_BLOCK numbers
    at a time, in one reused buffer; None in place of a block holding inf or NaN."""
    n_k = array.shape[-2]
    keys = max(1, FLOAT16_BLOCK * n_k // max(1, array.size))
    buffer = np.empty(array.shape[:-2] + (min(keys, n_k), array.shape[-1]), np.float32)
    for c0 in range(0, n_k, keys):
        block = array[..., c0:c0 + keys, :]
        widened = buffer[..., : block.shape[-2], :]
        yield c0, widened if widen_if_finite(block, widened) else None
