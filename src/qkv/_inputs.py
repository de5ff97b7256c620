"""The inputs of one attention call, checked once: what the plain and the tiled attention share."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from qkv._checks import (
    broadcast_batch_shape,
    broadcast_batches,
    check_finite,
    check_flag,
    check_same_d_k,
    check_scale,
    float_matrices,
)
from qkv._magnitudes import magnitudes


@dataclass(frozen=True)
class AttentionInputs:
    """q, k, v in the results' dtype (float16 not widened: the kernels widen the blocks they use) and the options,
    all checked (`unchecked_inputs`: the values of q, k, v not yet looked at)."""

    q: np.ndarray  # (..., n_q, d_k), in dtype: float16 is widened a block at a time where it is computed
    k: np.ndarray  # (..., n_k, d_k), in dtype
    v: np.ndarray  # (..., n_k, d_v), in dtype
    mask: np.ndarray | None  # boolean (..., n_q or 1, n_k), broadcastable to (*batch_shape, n_q, n_k); True = may attend
    is_causal: bool  # query i sees keys 0..i (PyTorch's top-left alignment when n_q != n_k)
    scale: float  # a Python float, so it never widens float32
    batch_shape: tuple[int, ...]  # the broadcast leading dims of q, k, v
    dtype: np.dtype[Any]  # the dtype of the results: numpy's promotion of the inputs
    work_dtype: np.dtype[Any]  # dtype of the arithmetic: at least float32, as PyTorch does on the CPU
    v_scale: float = 1.0  # v above was divided by this (a power of two) so that sums of weights·v cannot overflow
    q_longest: float = math.nan  # the longest row of q, of k; v's largest and smallest nonzero |entry| (before v_scale)
    k_longest: float = math.nan
    v_largest: float = math.nan
    v_smallest_nonzero: float = math.nan
    # Grouped-query attention: each K/V head serves this many query heads, kept apart on an axis of their own:
    # q is (..., kv_heads, kv_group, n_q, d_k), k and v (..., kv_heads, 1, n_k, d), so every head of a group reads
    # the same K/V head, nothing copied; `ungroup_heads` makes the results' heads one axis again. 1: no groups.
    kv_group: int = 1

    @property
    def n_q(self) -> int:
        return int(self.q.shape[-2])

    @property
    def n_k(self) -> int:
        return int(self.k.shape[-2])

    @property
    def heads_batch_shape(self) -> tuple[int, ...]:
        """The batch shape of the results, with the heads counted as the caller counts them (one axis)."""
        if self.kv_group == 1:
            return self.batch_shape
        return self.batch_shape[:-2] + (self.batch_shape[-2] * self.batch_shape[-1],)


def _kv_heads(q: np.ndarray, kv: np.ndarray, name: str) -> int:
    """Grouped-query attention: how many heads k or v has, a divisor of q's (each serves an equal group of them)."""
    if q.ndim < 3 or kv.ndim < 3:
        raise ValueError(
            f"enable_gqa=True needs a heads axis (..., heads, n, d) on q and {name}, "
            f"got q.shape={q.shape}, {name}.shape={kv.shape}"
        )
    heads, kv_heads = q.shape[-3], kv.shape[-3]
    if kv_heads == 0 or heads % kv_heads:
        raise ValueError(
            f"q has {heads} heads, not a multiple of {name}'s {kv_heads} heads "
            f"(q.shape={q.shape}, {name}.shape={kv.shape}); grouped-query attention shares each K/V head "
            "among an equal group of query heads"
        )
    return int(kv_heads)


def _grouped_heads(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """q, k, v for grouped-query attention, and the group size: views with the query heads of a group on their own
    axis, k and v with an axis of 1 there, so that numpy broadcasts each K/V head to its group without a copy.

    When k and v have different numbers of heads (PyTorch accepts that too) the one that differs from q's is
    repeated (a copy), as it was before the groups."""
    heads, k_heads, v_heads = q.shape[-3], _kv_heads(q, k, "k"), _kv_heads(q, v, "v")
    if k_heads == v_heads < heads:
        group = heads // k_heads
        q = q.reshape(q.shape[:-3] + (k_heads, group) + q.shape[-2:])  # (..., kv_heads, group, n_q, d_k): a view
        return q, np.expand_dims(k, -3), np.expand_dims(v, -3), group  # (..., kv_heads, 1, n_k, d): views
    k = k if k_heads == heads else np.repeat(k, heads // k_heads, axis=-3)  # (..., heads, n_k, d_k)
    v = v if v_heads == heads else np.repeat(v, heads // v_heads, axis=-3)
    return q, k, v, 1


def _group_mask(mask: np.ndarray, group: int) -> np.ndarray:
    """A checked mask (..., heads or 1, n_q or 1, n_k) in the grouped layout (..., kv_heads or 1, group or 1, …)."""
    if group == 1 or mask.ndim < 3:  # no groups; or no heads axis: it broadcasts over the groups as over the heads
        return mask
    heads = mask.shape[-3]
    if heads == 1:
        return np.expand_dims(mask, -3)
    return mask.reshape(mask.shape[:-3] + (heads // group, group) + mask.shape[-2:])  # splitting an axis: a view


def ungroup_heads(array: np.ndarray, inputs: AttentionInputs) -> np.ndarray:
    """A result (..., kv_heads, kv_group, n, x) of grouped inputs as (..., heads, n, x); others as they are.

    >>> inputs = unchecked_inputs(np.ones((6, 1, 2)), np.ones((2, 3, 2)), np.ones((2, 3, 2)), mask=None, scale=None,
    ...                           is_causal=False, enable_gqa=True)
    >>> inputs.q.shape, inputs.k.shape, inputs.kv_group, ungroup_heads(np.ones((2, 3, 1, 2)), inputs).shape
    ((2, 3, 1, 2), (2, 1, 3, 2), 3, (6, 1, 2))
    """
    if inputs.kv_group == 1:
        return array
    return array.reshape(array.shape[:-4] + (array.shape[-4] * array.shape[-3],) + array.shape[-2:])


def _batch_shape(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> tuple[int, ...]:
    try:
        return broadcast_batch_shape(q=q, k=k, v=v)
    except ValueError as error:
        heads_q, heads_kv = q.shape[-3] if q.ndim > 2 else 1, k.shape[-3] if k.ndim > 2 else 1
        if heads_kv > 1 and heads_q % heads_kv == 0:
            raise ValueError(f"{error}; for grouped-query attention pass enable_gqa=True") from None
        raise


def _grouped_batch_shape(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> tuple[int, ...]:
    """The batch shape of grouped-query attention (q's heads in place of k's and v's), the heads checked."""
    heads = q.shape[-3] if q.ndim > 2 else 0
    batches = {"q": q.shape[:-2]}
    for name, kv in (("k", k), ("v", v)):
        _kv_heads(q, kv, name)  # a heads axis, and a divisor of q's heads
        batches[name] = kv.shape[:-3] + (heads,)
    return broadcast_batches(batches, {"q": q.shape, "k": k.shape, "v": v.shape})


def check_mask(mask: Any, scores_shape: tuple[int, ...]) -> np.ndarray:
    """A boolean mask (True = may attend) that broadcasts to the scores' shape, with at least one key per query row."""
    if isinstance(mask, np.ma.MaskedArray):
        raise TypeError("mask is a numpy.ma.MaskedArray; pass a plain boolean array (True = may attend)")
    mask = np.asarray(mask)
    checked: np.ndarray = mask
    if mask.dtype != np.bool_:
        raise TypeError(
            f"mask must be boolean (True = may attend), got dtype {mask.dtype}; "
            "convert it with mask.astype(bool) if 1 means 'may attend' (additive float masks are not supported)"
        )
    try:
        fits = np.broadcast_shapes(mask.shape, scores_shape) == scores_shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"mask of shape {mask.shape} does not broadcast to the scores' shape (..., n_q, n_k) = {scores_shape}"
        )
    # A row with no allowed key would be softmax over nothing: 0/0 = NaN. Say which row instead (when there
    # is a row: an empty batch or n_q = 0 has none, and gives an empty result).
    blocked = ~np.atleast_1d(mask).any(axis=-1)  # (..., n_q) of the mask as given, before broadcasting
    found = np.argwhere(np.broadcast_to(blocked, scores_shape[:-1])) if blocked.any() else np.empty((0, 0), np.intp)
    if len(found):
        *batch, row = (int(i) for i in found[0])
        where = f" (batch index {tuple(batch)})" if batch else ""
        raise ValueError(f"query row {row}{where} has every key masked; softmax over no keys is undefined")
    # (..., n_q or 1, n_k): a key axis of 1 (or a 0-d or 1-D mask) spread over the keys as a view, so that the
    # kernels can cut a block of keys out of it
    matrix = np.atleast_2d(checked)
    return np.broadcast_to(matrix, matrix.shape[:-1] + scores_shape[-1:])


def attention_inputs(
    q: Any, k: Any, v: Any, *, mask: Any, scale: Any, is_causal: Any, enable_gqa: Any
) -> AttentionInputs:
    """Check and convert everything an attention call gets, once, in the order a reader would."""
    inputs = unchecked_inputs(q, k, v, mask=mask, scale=scale, is_causal=is_causal, enable_gqa=enable_gqa)
    return checked_values(inputs)


def unchecked_inputs(
    q: Any, k: Any, v: Any, *, mask: Any, scale: Any, is_causal: Any, enable_gqa: Any
) -> AttentionInputs:
    """The shapes, the mask and the options checked; q, k, v in their dtype (float16 not widened), their values
    not yet looked at (`checked_values` does; `attention_output`'s decode path finds NaN and inf as it computes)."""
    q, k, v = float_matrices("(..., n, d)", {"q": q, "k": k, "v": v}, finite=False)  # NaN and inf: found later
    check_same_d_k(q, k)
    if k.shape[-2] != v.shape[-2]:  # every key needs exactly one value
        raise ValueError(
            f"k has n_k={k.shape[-2]} keys but v has {v.shape[-2]} values (k.shape={k.shape}, v.shape={v.shape})"
        )
    if k.shape[-2] == 0:
        raise ValueError(f"k has no keys (k.shape={k.shape}); softmax over no keys is undefined")
    if q.shape[-1] == 0:
        raise ValueError(f"q and k have d_k=0 (q.shape={q.shape}); there is nothing to compare")
    is_causal = check_flag(is_causal, "is_causal")
    group = 1
    if check_flag(enable_gqa, "enable_gqa"):
        shown = _grouped_batch_shape(q, k, v)  # the batch shape as the caller counts the heads
        q, k, v, group = _grouped_heads(q, k, v)
    else:
        shown = _batch_shape(q, k, v)
    batch_shape = shown if group == 1 else shown[:-1] + (shown[-1] // group, group)  # the heads axis split in two
    n_q, n_k = q.shape[-2], k.shape[-2]
    if mask is not None:
        if is_causal:
            raise ValueError("pass either mask= or is_causal=True, not both (as in PyTorch)")
        mask = _group_mask(check_mask(mask, shown + (n_q, n_k)), group)
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else check_scale(scale)
    work_dtype = np.promote_types(q.dtype, np.float32)  # float16 -> float32; float32/float64 unchanged
    return AttentionInputs(q, k, v, mask, is_causal, scale, batch_shape, q.dtype, work_dtype, kv_group=group)


def checked_values(inputs: AttentionInputs) -> AttentionInputs:
    """No NaN or inf in q, k, v (else a ValueError naming the first); v shrunk if huge; and the sizes
    `attention_output`'s key-block path needs, all found in one pass over each array. float16 stays float16: each
    piece is widened to float32 as it is looked at, and the kernels widen the blocks they use, so a call never
    holds float32 copies of whole inputs."""
    q, k, v = inputs.q, inputs.k, inputs.v
    sizes = {}
    for array, name in ((q, "q"), (k, "k"), (v, "v")):
        sizes[name] = magnitudes(array, smallest=name == "v")  # one pass over each: NaN/inf, and what attention_output needs
        if not sizes[name].finite:
            check_finite(array, name)  # names the first NaN or inf
    v, v_scale = _shrink_huge_values(v, sizes["v"].largest, inputs.work_dtype)
    return replace(inputs, v=v, v_scale=v_scale, q_longest=sizes["q"].longest_row,
                   k_longest=sizes["k"].longest_row, v_largest=sizes["v"].largest,
                   v_smallest_nonzero=sizes["v"].smallest_nonzero)


# Each output row is a convex combination of the rows of v, so it lies within v's range; but the
# sums that make it (and their rounding) can pass the dtype's maximum on the way when |v| is near it.
_V_SHRINK = 4.0


def _shrink_huge_values(v: np.ndarray, largest: float, work_dtype: np.dtype[Any]) -> tuple[np.ndarray, float]:
    """v / 4 (exact) when its largest |v| is above a quarter of the work dtype's maximum (never for float16, whose
    largest number is far below float32's); the factor to multiply back."""
    if v.size and largest > np.finfo(work_dtype).max / _V_SHRINK:
        return v / _V_SHRINK, _V_SHRINK
    return v, 1.0


def restore_v_scale(output: np.ndarray, inputs: AttentionInputs) -> np.ndarray:
    """The output in inputs.dtype, times the factor v was shrunk by, kept within the dtype's range.

    The exact output lies within v's range, so a product that rounds past the maximum is the maximum.
    """
    if inputs.v_scale != 1.0:
        limit = np.finfo(output.dtype).max
        with np.errstate(over="ignore"):
            output *= inputs.v_scale
        np.clip(output, -limit, limit, out=output)
    with np.errstate(under="ignore"):  # float16: a tiny output rounds to a subnormal or 0, as the dtype rounds
        return output.astype(inputs.dtype, copy=False)
