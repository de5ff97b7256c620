"""Tiled attention with an online softmax (FlashAttention's idea): the same output, without the n×n matrix."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from qkv._checks import (
    as_float_array,
    as_matrices,
    broadcast_batch_shape,
    check_computed_finite,
    check_finite,
    check_not_empty,
    check_positive_int,
    check_same_d_k,
    check_same_n_k,
    check_scale,
)


def _check_causal(causal: object) -> bool:
    if not isinstance(causal, (bool, np.bool_)):
        raise TypeError(f"causal must be True or False, got {causal!r}")
    return bool(causal)


def tiled_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    block_size: int = 128,
    causal: bool = False,
    scale: float | None = None,
) -> np.ndarray:
    """softmax(Q·Kᵀ · scale) · V computed tile by tile; returns only the output.

    The same numbers as `scaled_dot_product_attention(q, k, v)[0]` (to rounding), but the
    (n_q, n_k) score and weight matrices never exist: queries and keys are cut into blocks
    of `block_size`, and for each block of queries the keys are visited one block at a time.
    Each query row carries a running maximum m and a running sum ℓ = Σ exp(s - m) of the
    scores seen so far, and an accumulator Σ exp(s - m)·v. When a new block raises the
    maximum, the old sum and accumulator are multiplied by exp(m_old - m_new), which makes
    them as if they had been computed with the new maximum from the start (the online
    softmax). At the end, accumulator / ℓ is the output.

    That is why there are no weights to return: each weight exists only for the moment its
    tile is processed. Materialising them would cost the n_q·n_k memory this avoids. Use
    `scaled_dot_product_attention` when you want to look at the weights.

    Shapes: q (..., n_q, d_k), k (..., n_k, d_k), v (..., n_k, d_v) -> output (..., n_q, d_v);
    leading batch/head dimensions broadcast as in numpy. Peak extra memory is
    O(block_size² + n_q·d_v) per batch entry: a few block_size × block_size tiles plus the
    output, instead of the n_q × n_k weights. float16 inputs are accumulated in float32
    (as FlashAttention does) and the output is returned in the input dtype.

    With ``causal=True`` (self-attention, n_q == n_k) query i sees keys 0..i. Tiles entirely
    above the diagonal are skipped, not computed and then masked.

    >>> import numpy as np
    >>> from qkv import causal_mask, scaled_dot_product_attention
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.normal(size=(3, 10, 4))  # n = 10 tokens, d = 4
    >>> output = tiled_attention(q, k, v, block_size=3)  # blocks of 3, 3, 3 and 1 keys
    >>> output.shape
    (10, 4)
    >>> bool(np.allclose(output, scaled_dot_product_attention(q, k, v)[0], rtol=0, atol=1e-12))
    True
    >>> causal = tiled_attention(q, k, v, block_size=4, causal=True)
    >>> bool(np.allclose(causal, scaled_dot_product_attention(q, k, v, mask=causal_mask(10))[0], rtol=0, atol=1e-12))
    True
    """
    q, k, v = as_matrices("(..., n, d)", q=q, k=k, v=v)
    check_same_d_k(q, k)
    check_same_n_k(k, v)
    batch_shape = broadcast_batch_shape(q=q, k=k, v=v)
    block_size = check_positive_int(block_size, "block_size")
    causal = _check_causal(causal)
    n_q, n_k, d_k, d_v = q.shape[-2], k.shape[-2], q.shape[-1], v.shape[-1]
    if causal and n_q != n_k:
        raise ValueError(
            f"causal=True needs as many queries as keys (query i sees keys 0..i), got n_q={n_q} and n_k={n_k}"
        )
    scale = 1.0 / math.sqrt(d_k) if scale is None else check_scale(scale)

    out_dtype = q.dtype
    work = np.promote_types(out_dtype, np.float32)  # float16 -> float32, float32/float64 unchanged
    q, k, v = (array.astype(work, copy=False) for array in (q, k, v))
    output = np.empty(batch_shape + (n_q, d_v), dtype=out_dtype)  # (..., n_q, d_v): the only O(n) result

    for q0 in range(0, n_q, block_size):
        q1 = min(q0 + block_size, n_q)
        q_block = q[..., q0:q1, :]  # (..., bq, d_k)
        m = np.full(batch_shape + (q1 - q0, 1), -np.inf, dtype=work)  # running max per query row
        l = np.zeros(batch_shape + (q1 - q0, 1), dtype=work)  # running Σ exp(s - m)
        acc = np.zeros(batch_shape + (q1 - q0, d_v), dtype=work)  # running Σ exp(s - m)·v
        # Causal: keys after this block's last query are hidden from all of its rows, so stop there.
        k_end = q1 if causal else n_k
        for k0 in range(0, k_end, block_size):
            k1 = min(k0 + block_size, k_end)
            with np.errstate(over="ignore", invalid="ignore"):  # overflow becomes an error just below
                s = q_block @ np.swapaxes(k[..., k0:k1, :], -1, -2)  # (..., bq, d_k) @ (..., d_k, bk) -> (..., bq, bk)
                s *= scale
            check_computed_finite(s, "q·kᵀ·scale")
            if causal and k1 - 1 > q0:  # the tile reaches above the diagonal: hide keys j > i
                visible = np.arange(k0, k1) <= np.arange(q0, q1)[:, None]  # (bq, bk)
                s = np.where(visible, s, -np.inf)  # every row keeps key k0 <= q0 <= i: never all -inf
            m_new = np.maximum(m, s.max(axis=-1, keepdims=True))  # (..., bq, 1), finite from the first tile on
            correction = np.exp(m - m_new)  # exp(-inf) = 0 on the first tile; 1 where the max did not grow
            p = np.exp(s - m_new)  # (..., bq, bk), every entry <= 1: no overflow
            l = l * correction + p.sum(axis=-1, keepdims=True)
            acc = acc * correction + p @ v[..., k0:k1, :]  # (..., bq, bk) @ (..., bk, d_v) -> (..., bq, d_v)
            m = m_new
        output[..., q0:q1, :] = acc / l  # l >= 1: the row's largest term is exp(0)
    return output


@dataclass(frozen=True, eq=False)
class OnlineSoftmaxStep:
    """What the online softmax knows after one more block of keys (one entry per query row).

    `correction` = exp(m_old - m_new) is the factor the previous sum and accumulator were
    multiplied by; it is 1 where this block did not raise the row's maximum.
    """

    keys: range  # the key columns of this block
    block_max: np.ndarray  # (n_q,) largest score of each row within this block
    running_max: np.ndarray  # (n_q,) m: largest score seen so far
    correction: np.ndarray  # (n_q,) exp(m_old - m_new); 0 on the first block (nothing to rescale)
    block_exps: np.ndarray  # (n_q, block) exp(s - m_new) of this block's scores
    running_sum: np.ndarray  # (n_q,) ℓ = Σ exp(s - m) over the keys seen so far
    weights: np.ndarray  # (n_q, keys seen) exp(s - m) / ℓ: softmax over the keys seen so far
    accumulator: np.ndarray | None  # (n_q, d_v) Σ exp(s - m)·v over the keys seen so far, if v was given

    @property
    def output(self) -> np.ndarray | None:
        """(n_q, d_v) accumulator / ℓ: attention over the keys seen so far (the final output after the last block)."""
        return None if self.accumulator is None else self.accumulator / self.running_sum[:, None]


def online_softmax_steps(scores: ArrayLike, block_size: int, v: ArrayLike | None = None) -> list[OnlineSoftmaxStep]:
    """Softmax of each row of `scores` (n_q, n_k), computed block by block; the state after every block.

    This is the bookkeeping `tiled_attention` does inside, laid out for reading. After the
    last block, `weights` is `softmax(scores)` and, if `v` (n_k, d_v) is given, `output` is
    `softmax(scores) @ v`. Scores are the already scaled Q·Kᵀ/√d_k.

    The worked example's scaled scores, one key per block. The second row's maximum grows
    in the second block, so its earlier sum is rescaled by exp(m_old - m_new):

    >>> from qkv.examples import worked_example
    >>> ex = worked_example()
    >>> first, second = online_softmax_steps(ex.scaled_scores, block_size=1, v=ex.v)
    >>> first.running_max.round(2), second.running_max.round(2)
    (array([1.15, 1.15]), array([1.15, 1.73]))
    >>> second.correction.round(2)
    array([1.  , 0.56])
    >>> second.running_sum.round(2)
    array([1.56, 1.56])
    >>> second.weights.round(2)
    array([[0.64, 0.36],
           [0.36, 0.64]])
    >>> bool(np.allclose(second.weights, ex.weights)), bool(np.allclose(second.output, ex.output))
    (True, True)
    """
    scores = as_float_array(scores, "scores")
    if scores.ndim != 2:
        raise ValueError(f"scores must be a 2-D matrix (n_q, n_k), got shape {scores.shape}")
    check_not_empty(scores, "scores")
    check_finite(scores, "scores")
    block_size = check_positive_int(block_size, "block_size")
    n_q, n_k = scores.shape
    if v is not None:
        v = as_float_array(v, "v")
        if v.ndim != 2:
            raise ValueError(f"v must be a 2-D matrix (n_k, d_v), got shape {v.shape}")
        check_not_empty(v, "v")
        check_finite(v, "v")
        if v.shape[0] != n_k:
            raise ValueError(f"scores has n_k={n_k} keys but v has {v.shape[0]} values (v.shape={v.shape})")

    m = np.full(n_q, -np.inf)
    l = np.zeros(n_q)
    acc = None if v is None else np.zeros((n_q, v.shape[1]))
    steps = []
    for k0 in range(0, n_k, block_size):
        k1 = min(k0 + block_size, n_k)
        block = scores[:, k0:k1]  # (n_q, bk)
        block_max = block.max(axis=1)
        m_new = np.maximum(m, block_max)
        correction = np.exp(m - m_new)
        exps = np.exp(block - m_new[:, None])
        l = l * correction + exps.sum(axis=1)
        if acc is not None:
            acc = acc * correction[:, None] + exps @ v[k0:k1]
        m = m_new
        weights = np.exp(scores[:, :k1] - m[:, None]) / l[:, None]
        steps.append(OnlineSoftmaxStep(range(k0, k1), block_max, m, correction, exps, l, weights, acc))
    return steps
