"""Softmax: turn a row of scores into weights that are positive and sum to 1 (step 4 of the article)."""

from __future__ import annotations

import numbers

import numpy as np
from numpy.lib.array_utils import normalize_axis_index
from numpy.typing import ArrayLike

from qkv._checks import as_float_array


def softmax(x: ArrayLike, axis: int = -1) -> np.ndarray:
    """softmax(z_i) = exp(z_i) / Σ_j exp(z_j), along `axis`.

    Subtracting the row maximum first changes nothing mathematically (the factor exp(-max)
    cancels between numerator and denominator) but keeps every exponent <= 0, so exp never
    overflows: logits of ±1e4 are fine. Entries equal to -inf get weight 0; that is how an
    attention mask takes a key out of the sum. NaN, +inf and rows that are entirely -inf are
    rejected, because they have no meaningful softmax. float16 is computed in float32 and
    rounded to float16 at the end, as PyTorch does: a sum of 70,000 exponentials is beyond
    float16's largest number (65,504), and float16 arithmetic would cost several ulp.

    The article's first row, [2, 1] / √3 ≈ [1.15, 0.58]:

    >>> import numpy as np
    >>> np.round(softmax(np.array([2.0, 1.0]) / np.sqrt(3)), 2)
    array([0.64, 0.36])

    Huge logits do not overflow, and a masked (-inf) entry gets exactly 0:

    >>> softmax([[1e4, -1e4], [0.0, -np.inf]])
    array([[1., 0.],
           [1., 0.]])
    >>> softmax(np.zeros(70000, np.float16))[:2]
    array([1.43e-05, 1.43e-05], dtype=float16)
    """
    x = as_float_array(x, "x")
    if x.ndim == 0:
        raise ValueError("x must have at least 1 dimension, got a scalar")
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"axis must be an int, got {axis!r} of type {type(axis).__name__}")
    axis = normalize_axis_index(int(axis), x.ndim)  # AxisError (a ValueError) names the bad axis
    if x.dtype == np.float16:  # computed in float32, rounded once at the end
        weights32 = softmax(x.astype(np.float32), axis)
        with np.errstate(under="ignore"):  # a weight below float16's range rounds to a subnormal or 0: rounding, not an error
            return weights32.astype(np.float16)
    if x.shape[axis] == 0:
        raise ValueError(f"x is empty along axis {axis}: shape {x.shape}")
    if np.isnan(x).any() or np.isposinf(x).any():
        raise ValueError("x contains NaN or +inf; softmax is undefined there")
    x_max = np.max(x, axis=axis, keepdims=True)
    if np.isneginf(x_max).any():
        raise ValueError(f"x has a row that is entirely -inf along axis {axis}; softmax over it is undefined")
    with np.errstate(over="ignore", under="ignore"):  # -1e308 - 1e308 = -inf is right: its weight is 0; tiny exps are 0
        exps = np.exp(x - x_max)  # every exponent <= 0, the largest is exactly exp(0) = 1
    weights: np.ndarray = exps / np.sum(exps, axis=axis, keepdims=True)  # denominator >= 1: never 0/0
    return weights
