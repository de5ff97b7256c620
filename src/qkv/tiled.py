"""Tiled attention with an online softmax (FlashAttention's idea): the same output, without the n×n matrix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np
from numpy.typing import ArrayLike

from qkv._checks import as_float_array, check_computed_finite, check_finite, check_not_empty, check_positive_int
from qkv._float16 import float16_to_float32
from qkv._inputs import attention_inputs, restore_v_scale, ungroup_heads

# Chosen by measurement (benchmarks/attention_speed.py prints the sweep): within 25% of the fastest
# block size at n = 1,024 and 4,096 in every run so far, where 512 sometimes is and sometimes is not.
# Larger tiles mean fewer trips through the Python loop and larger, faster matrix products, but
# their memory grows as block_size² (1024² float32: 4 MiB a tile).
DEFAULT_BLOCK_SIZE = 1024


def tiled_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    is_causal: bool = False,
    enable_gqa: bool = False,
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> np.ndarray:
    """softmax(Q·Kᵀ · scale) · V computed tile by tile; returns only the output.

    The same numbers as `scaled_dot_product_attention(q, k, v)[0]` (to rounding), but the
    (n_q, n_k) score and weight matrices never exist: queries and keys are cut into blocks
    of `block_size`, and for each block of queries the keys are visited one block at a time.
    Each query row carries a running maximum m and a running sum ℓ = Σ exp(s - m) of the
    scores seen so far, and the output so far, Σ exp(s - m)·v / ℓ. When a new block raises the
    maximum, the old sum is multiplied by exp(m_old - m_new), which makes it as if it had
    been computed with the new maximum from the start (the online softmax); the output so
    far is reweighted by the share of ℓ the old keys keep. After the last block it is the
    output. (Keeping it divided by ℓ, rather than dividing once at the end, keeps it within
    the range of v: a sum of many large values cannot overflow.)

    That is why there are no weights to return: each weight exists only for the moment its
    tile is processed. Materialising them would cost the n_q·n_k memory this avoids. Use
    `scaled_dot_product_attention` when you want to look at the weights.

    Shapes and the keyword-only options `mask`, `scale`, `is_causal` and `enable_gqa` are
    those of `scaled_dot_product_attention`. Peak extra memory is O(block_size² + n_q·d_v)
    per batch entry: a few block_size × block_size tiles plus the output, instead of the
    n_q × n_k weights. float16 inputs are computed in float32 (as FlashAttention accumulates)
    and the output is returned in float16.

    With ``is_causal=True`` query i sees keys 0..i. Tiles entirely above the diagonal are
    skipped, not computed and then masked.

    >>> import numpy as np
    >>> from qkv import scaled_dot_product_attention
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.normal(size=(3, 10, 4))  # n = 10 tokens, d = 4
    >>> output = tiled_attention(q, k, v, block_size=3)  # blocks of 3, 3, 3 and 1 keys
    >>> output.shape
    (10, 4)
    >>> bool(np.allclose(output, scaled_dot_product_attention(q, k, v).output, rtol=0, atol=1e-12))
    True
    >>> causal = tiled_attention(q, k, v, block_size=4, is_causal=True)
    >>> bool(np.allclose(causal, scaled_dot_product_attention(q, k, v, is_causal=True).output, rtol=0, atol=1e-12))
    True
    """
    inputs = attention_inputs(q, k, v, mask=mask, scale=scale, is_causal=is_causal, enable_gqa=enable_gqa)
    block_size = check_positive_int(block_size, "block_size")
    q, k_t, v = inputs.q, np.swapaxes(inputs.k, -1, -2), inputs.v  # (..., n_q, d_k), (..., d_k, n_k), (..., n_k, d_v)
    n_q, n_k, d_v = inputs.n_q, inputs.n_k, v.shape[-1]
    mask = None if inputs.mask is None else np.broadcast_to(inputs.mask, np.broadcast_shapes(inputs.mask.shape, (n_q, n_k)))
    tile_batch = np.broadcast_shapes(q.shape[:-2], k_t.shape[:-2], () if mask is None else mask.shape[:-2])
    # (..., n_q, d_v): the only O(n) result; float16 rounded a block of rows at a time, as each is done
    output = np.empty(inputs.batch_shape + (n_q, d_v), dtype=inputs.dtype)
    scale_scores = inputs.scale > 1  # then after the product: q·scale may overflow where q·kᵀ·scale does not
    # float16: each block of q, k or v is widened to float32 when it is used (a tile's worth, never the whole input)
    widened = (lambda block: float16_to_float32(block)) if inputs.dtype == np.float16 else (lambda block: block)

    for q0 in range(0, n_q, block_size):
        q1 = min(q0 + block_size, n_q)
        q_block = widened(q[..., q0:q1, :])  # (..., bq, d_k)
        q_block = q_block if scale_scores else q_block * inputs.scale
        m = np.full(tile_batch + (q1 - q0, 1), -np.inf, dtype=inputs.work_dtype)  # running max per query row
        l = np.zeros(tile_batch + (q1 - q0, 1), dtype=inputs.work_dtype)  # running Σ exp(s - m)
        acc = np.zeros(inputs.batch_shape + (q1 - q0, d_v), dtype=inputs.work_dtype)  # Σ exp(s - m)·v / ℓ so far
        # Causal: keys after this block's last query are hidden from all of its rows, so stop there.
        k_end = min(q1, n_k) if inputs.is_causal else n_k
        for k0 in range(0, k_end, block_size):
            k1 = min(k0 + block_size, k_end)
            with np.errstate(over="ignore", invalid="ignore"):  # overflow shows as a NaN/+inf maximum below
                s = q_block @ widened(k_t[..., :, k0:k1])  # (..., bq, d_k) @ (..., d_k, bk) -> (..., bq, bk)
                if scale_scores:
                    s *= inputs.scale
            if mask is not None:
                s = np.where(mask[..., q0:q1, k0:k1], s, -np.inf)
            elif inputs.is_causal and k1 - 1 > q0:  # the tile reaches above the diagonal: hide keys j > i
                np.copyto(s, -np.inf, where=np.arange(k0, k1) > np.arange(q0, q1)[:, None])
            with np.errstate(under="ignore"):  # exp of very negative scores is 0, whatever np.seterr says
                m, l, acc = _online_softmax_update(s, widened(v[..., k0:k1, :]), m, l, acc)
        if np.isneginf(m).any():  # every score of a row overflowed to -inf (masks leave each row a key)
            _overflow(inputs.work_dtype)
        with np.errstate(under="ignore"):  # float16: a tiny output rounds to a subnormal or 0, as the dtype rounds
            output[..., q0:q1, :] = acc
    result = restore_v_scale(output, inputs)  # in the inputs' dtype
    check_computed_finite(result, "weights·v")
    return ungroup_heads(result, inputs)


def _overflow(dtype: np.dtype[Any]) -> NoReturn:
    raise ValueError(f"q·kᵀ·scale overflowed to inf/NaN in {dtype}; the inputs are too large for this dtype")


def _online_softmax_update(
    s: np.ndarray, v: np.ndarray, m: np.ndarray, l: np.ndarray, acc: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fold one tile of scores s (..., bq, bk) and its values v (..., bk, d_v) into the running m, ℓ and output."""
    block_max = s.max(axis=-1, keepdims=True)  # (..., bq, 1); -inf for a row whose keys here are all hidden
    if np.isnan(block_max).any() or np.isposinf(block_max).any():
        _overflow(s.dtype)
    m_new = np.maximum(m, block_max)
    m_safe = np.where(np.isneginf(m_new), 0.0, m_new)  # a row with nothing visible yet: keep exp(-inf - 0) = 0
    correction = np.exp(m - m_safe)  # exp(-inf) = 0 on a row's first keys; 1 where the max did not grow
    with np.errstate(over="ignore"):  # -1e308 - 1e308 = -inf is right: its weight is 0
        np.subtract(s, m_safe, out=s)
    np.exp(s, out=s)  # p = exp(s - m_new), every entry <= 1: no overflow
    l_old = l * correction
    l_new = l_old + s.sum(axis=-1, keepdims=True)
    l_safe = np.where(l_new == 0.0, 1.0, l_new)  # 0 only while nothing is visible: then acc stays 0
    s /= l_safe  # p / ℓ_new: this tile's weights, as far as the keys seen so far go
    acc = acc * (l_old / l_safe) + s @ v  # (..., bq, bk) @ (..., bk, d_v) -> (..., bq, d_v)
    return m_new, l_new, acc


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
        if self.accumulator is None:
            return None
        return self.accumulator / np.where(self.running_sum > 0, self.running_sum, 1.0)[:, None]  # rows that saw nothing: 0


def online_softmax_steps(scores: ArrayLike, block_size: int, v: ArrayLike | None = None) -> list[OnlineSoftmaxStep]:
    """Softmax of each row of `scores` (n_q, n_k), computed block by block; the state after every block.

    This is the bookkeeping `tiled_attention` does inside, laid out for reading. After the
    last block, `weights` is `softmax(scores)` and, if `v` (n_k, d_v) is given, `output` is
    `softmax(scores) @ v`. Scores are the already scaled Q·Kᵀ/√d_k. A score of -inf is a masked
    key, as in `qkv.softmax`: its weight is 0; a row whose keys so far are all masked has a
    running maximum of -inf, a sum of 0, and weights and output of 0 until a visible key comes.

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
    _check_scores(scores)
    block_size = check_positive_int(block_size, "block_size")
    n_q, n_k = scores.shape
    values = None if v is None else as_float_array(v, "v")
    if values is not None:
        if values.ndim != 2:
            raise ValueError(f"v must be a 2-D matrix (n_k, d_v), got shape {values.shape}")
        check_not_empty(values, "v")
        check_finite(values, "v")
        if values.shape[0] != n_k:
            raise ValueError(f"scores has n_k={n_k} keys but v has {values.shape[0]} values (v.shape={values.shape})")

    m = np.full(n_q, -np.inf)
    l = np.zeros(n_q)
    acc = None if values is None else np.zeros((n_q, values.shape[1]))
    steps = []
    for k0 in range(0, n_k, block_size):
        k1 = min(k0 + block_size, n_k)
        block = scores[:, k0:k1]  # (n_q, bk)
        block_max = block.max(axis=1)
        m_new = np.maximum(m, block_max)
        # A row whose keys so far are all -inf (masked) has seen nothing: its shift is 0, so that its exps are 0, not NaN.
        shift = np.where(np.isneginf(m_new), 0.0, m_new)  # (n_q,)
        correction = np.exp(m - shift)  # 0 while nothing was seen: nothing to rescale
        exps = np.exp(block - shift[:, None])
        l = l * correction + exps.sum(axis=1)
        if acc is not None and values is not None:
            acc = acc * correction[:, None] + exps @ values[k0:k1]
        m = m_new
        weights = np.exp(scores[:, :k1] - shift[:, None]) / np.where(l > 0, l, 1.0)[:, None]  # rows that saw nothing: 0
        steps.append(OnlineSoftmaxStep(range(k0, k1), block_max, m, correction, exps, l, weights, acc))
    return steps


def _check_scores(scores: np.ndarray) -> None:
    """NaN and +inf have no softmax; -inf is a masked key (weight 0), as in `qkv.softmax`, as long as a row keeps one."""
    if np.isnan(scores).any() or np.isposinf(scores).any():
        index = tuple(int(i) for i in np.argwhere(np.isnan(scores) | np.isposinf(scores))[0])
        raise ValueError(f"scores contains NaN or +inf (first at index {index}, value {scores[index]}); "
                         "softmax is undefined there")
    masked_rows = np.isneginf(scores).all(axis=1)
    if masked_rows.any():
        raise ValueError(f"scores row {int(np.argmax(masked_rows))} is entirely -inf; softmax over it is undefined")
