"""Input checks shared by every qkv function, so that each mistake is reported in the same words."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

# dtype kinds we accept as numbers: bool, signed int, unsigned int, float.
_NUMERIC_KINDS = "biuf"


def as_float_array(value: Any, name: str) -> np.ndarray:
    """`value` as a float array: float inputs keep their dtype, bools/ints (and lists of them) become float64."""
    try:
        array = np.asarray(value)
    except ValueError as error:  # ragged nested lists
        raise ValueError(f"{name} is not a rectangular array: {error}") from None
    if array.dtype.kind not in _NUMERIC_KINDS:
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    if array.dtype.kind != "f":
        array = array.astype(np.float64)
    return array


def common_float_dtype(*arrays: np.ndarray) -> np.dtype:
    """numpy's promotion of the (already float) inputs: float32 + float32 stays float32, + float64 widens."""
    return np.result_type(*arrays)


def check_finite(array: np.ndarray, name: str) -> None:
    """Reject NaN/inf up front: one NaN would silently turn a whole softmax row into NaN."""
    bad = ~np.isfinite(array)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name} contains NaN or inf (first at index {index}, value {array[index]})")


def check_not_empty(array: np.ndarray, name: str) -> None:
    if 0 in array.shape:
        raise ValueError(f"{name} has an empty dimension: shape {array.shape}")


def as_matrices(layout: str = "(..., n, d)", **named: Any) -> list[np.ndarray]:
    """Convert each named input to a finite, non-empty float array with >= 2 dims, all in one common dtype.

    `layout` only words the error message (e.g. "(..., n_q, d_k)").
    """
    arrays = [as_float_array(value, name) for name, value in named.items()]
    for array, name in zip(arrays, named):
        if array.ndim < 2:
            raise ValueError(f"{name} must have at least 2 dimensions {layout}, got shape {array.shape}")
        check_not_empty(array, name)
        check_finite(array, name)
    dtype = common_float_dtype(*arrays)
    return [array.astype(dtype, copy=False) for array in arrays]


def broadcast_batch_shape(**named: np.ndarray) -> tuple[int, ...]:
    """The broadcast of the leading (batch/head) dimensions, i.e. everything but the last two axes."""
    try:
        return np.broadcast_shapes(*(array.shape[:-2] for array in named.values()))
    except ValueError:
        shapes = ", ".join(f"{name}.shape={array.shape}" for name, array in named.items())
        raise ValueError(f"the leading (batch) dimensions do not broadcast: {shapes}") from None


def check_same_d_k(q: np.ndarray, k: np.ndarray, q_name: str = "q", k_name: str = "k") -> None:
    """Q·Kᵀ needs queries and keys of the same width d_k."""
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"{q_name} has d_k={q.shape[-1]} but {k_name} has d_k={k.shape[-1]} "
            f"({q_name}.shape={q.shape}, {k_name}.shape={k.shape})"
        )


def check_same_n_k(k: np.ndarray, v: np.ndarray) -> None:
    """Every key needs exactly one value: row j of the weights multiplies row j of V."""
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"k has n_k={k.shape[-2]} keys but v has {v.shape[-2]} values "
            f"(k.shape={k.shape}, v.shape={v.shape})"
        )


def check_scale(scale: Any) -> float:
    """A plain Python float, so that it never changes the dtype of float32/float16 scores."""
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise TypeError(f"scale must be a real number, got {scale!r}")
    scale = float(scale)
    if not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be finite and > 0, got {scale}")
    return scale


def check_positive_int(value: Any, name: str) -> int:
    """Sizes and counts: a positive int (numpy ints welcome, bools and 3.0 are not)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, numbers.Number):
        raise TypeError(f"{name} must be a positive int, got {value!r}")
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def check_mask(mask: Any, scores_shape: tuple[int, ...]) -> np.ndarray:
    """A boolean mask (True = may attend) broadcast to the scores' shape, with at least one key per query row."""
    mask = np.asarray(mask)
    if mask.dtype != np.bool_:
        raise ValueError(
            f"mask must be boolean (True = may attend), got dtype {mask.dtype}; "
            "convert it with mask.astype(bool) if 1 means 'may attend'"
        )
    try:
        fits = np.broadcast_shapes(mask.shape, scores_shape) == scores_shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"mask of shape {mask.shape} does not broadcast to the scores' shape "
            f"(..., n_q, n_k) = {scores_shape}"
        )
    mask = np.broadcast_to(mask, scores_shape)
    # A row with no allowed key would be softmax over nothing: 0/0 = NaN. Say which row instead.
    blocked = ~mask.any(axis=-1)  # (..., n_q)
    if blocked.any():
        *batch, row = (int(i) for i in np.argwhere(blocked)[0])
        where = f" (batch index {tuple(batch)})" if batch else ""
        raise ValueError(f"query row {row}{where} has every key masked; softmax over no keys is undefined")
    return mask


def check_computed_finite(array: np.ndarray, what: str) -> None:
    """Finite inputs can still overflow (e.g. float16 above 65504); fail loudly instead of returning inf/NaN."""
    if not np.isfinite(array).all():
        raise ValueError(
            f"{what} overflowed to inf/NaN in {array.dtype}; the inputs are too large for this dtype"
        )


def check_square(array: np.ndarray, name: str) -> None:
    if array.ndim != 2 or array.shape[0] != array.shape[1]:
        raise ValueError(f"{name} must be a square matrix (n, n), got shape {array.shape}")


def check_probabilities(p: np.ndarray, name: str) -> None:
    """Rows (last axis) must be distributions: non-negative and summing to 1."""
    check_not_empty(p, name)
    check_finite(p, name)
    if (p < 0).any():
        raise ValueError(f"{name} has negative entries; expected probabilities (softmax rows)")
    # float16 rows carry ~1e-3 relative error, so compare with a tolerance of that order.
    sums = p.sum(axis=-1)
    if not np.allclose(sums, 1.0, atol=2e-3):
        worst = float(sums.flat[np.argmax(np.abs(sums - 1.0))])
        raise ValueError(f"{name} rows must sum to 1 along the last axis (one row sums to {worst})")
