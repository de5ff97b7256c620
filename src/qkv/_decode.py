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
- float16 k and v are widened to float32 a block of keys at a time, each block checked as it is widened.

Where anything is not finite (a NaN or inf in the inputs, scores or sums that overflowed), `decode_output`
returns None, and `attention_output` takes the checked path: that names the NaN or inf, refuses the overflow,
or computes what overflowed here (v near the dtype's maximum is shrunk there first).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from qkv._float16 import widen_if_finite
from qkv._inputs import AttentionInputs
from qkv._threads import one_blas_thread

DECODE_ROWS = 16  # query rows at most: the scores, n_q·n_k, stay small beside k and v, d·n_k each
FLOAT16_BLOCK = 1 << 19  # float16: numbers of k or v widened at a time, over every head (2 MiB of float32)


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
    # OpenBLAS on one thread: a product of one row is limited by memory, not arithmetic, and its second thread
    # cost up to 13× the time where the other core was busy (n_k = 32,768); anything not finite: None, below
    with one_blas_thread(), np.errstate(over="ignore", under="ignore", invalid="ignore"):
        queries = inputs.q.astype(inputs.work_dtype)  # (..., n_q, d_k): a few rows, checked whole
        if not np.isfinite(queries).all():
            return None
        if inputs.scale <= 1:  # a scale > 1 goes on the scores: q·scale may overflow where q·kᵀ·scale does not
            queries *= inputs.scale
        scores = _scores(queries, inputs)  # (..., n_q, n_k)
        if scores is None:
            return None
        sums = _exp_rows(scores, inputs.mask)  # (..., n_q, 1); the scores become exp(score - row maximum)
        output = _weighted_values(scores, inputs)  # (..., n_q, d_v)
        if output is None:
            return None
        output *= 1.0 / sums  # NaN in every row whose maximum was NaN or inf
        output = output.astype(inputs.dtype, copy=False)
        if not np.isfinite(output).all() or not _unseen_finite(queries, scores, inputs):
            return None
        return output


def _unseen_finite(queries: np.ndarray, weights: np.ndarray, inputs: AttentionInputs) -> bool:
    """Whether k and v are finite where the finite row maxima and output need not have shown it.

    A NaN or inf in k makes a row's maximum NaN or inf, or (-inf) a weight of 0, unless the query entry
    it meets is 0; one in v makes the output NaN or inf unless its weight is 0. float16 blocks were
    checked as they were widened.
    """
    if inputs.dtype == np.float16:
        return True
    every_weight = bool(weights.all())  # else a masked key, an exp that underflowed, or a score of -inf
    k_shown = every_weight and bool(queries.all())
    return (k_shown or bool(np.isfinite(inputs.k).all())) and (every_weight or bool(np.isfinite(inputs.v).all()))


def _scores(queries: np.ndarray, inputs: AttentionInputs) -> np.ndarray | None:
    """q·kᵀ·scale (..., n_q, n_k) in the work dtype; None for a float16 k holding inf or NaN."""
    scores: np.ndarray
    if inputs.dtype != np.float16:
        scores = queries @ np.swapaxes(inputs.k, -1, -2)  # (..., n_q, d_k) @ (..., d_k, n_k)
    else:
        batch = np.broadcast_shapes(queries.shape[:-2], inputs.k.shape[:-2])
        scores = np.empty(batch + (inputs.n_q, inputs.n_k), inputs.work_dtype)
        for c0, block in _widened_blocks(inputs.k):  # (..., keys, d_k) in float32
            if block is None:
                return None
            np.matmul(queries, np.swapaxes(block, -1, -2), out=scores[..., c0:c0 + block.shape[-2]])
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


def _weighted_values(weights: np.ndarray, inputs: AttentionInputs) -> np.ndarray | None:
    """weights·v (..., n_q, d_v) in the work dtype; None for a float16 v holding inf or NaN."""
    if inputs.dtype != np.float16:
        output: np.ndarray = weights @ inputs.v  # (..., n_q, n_k) @ (..., n_k, d_v)
        return output
    total = None
    for c0, block in _widened_blocks(inputs.v):  # (..., keys, d_v) in float32
        if block is None:
            return None
        part = weights[..., c0:c0 + block.shape[-2]] @ block  # (..., n_q, keys) @ (..., keys, d_v)
        total = part if total is None else np.add(total, part, out=total)
    return total


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
