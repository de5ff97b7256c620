"""The float16 conversions behind qkv's float16 attention agree with numpy's own casts, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from qkv import scaled_dot_product_attention
from qkv._checks import check_finite
from qkv._float16 import float16_to_float32, weights_to_float16

RNG = np.random.default_rng(16)


def every_finite_float16() -> np.ndarray:
    every = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    return every[(every.view(np.uint16) & 0x7C00) != 0x7C00]  # 63,488 numbers: all but inf and NaN


def test_widening_every_finite_float16_matches_numpy() -> None:
    every = every_finite_float16()
    assert every.size == 2**16 - 2 * 1024
    widened = float16_to_float32(every)
    assert widened.dtype == np.float32
    assert np.array_equal(widened.view(np.uint32), every.astype(np.float32).view(np.uint32))  # -0.0 included


def weights_that_test_every_rounding_case() -> np.ndarray:
    """float32 numbers in [0, 1]: every float16 (normal and subnormal), the ties between neighbours and
    the numbers just either side of each tie, plus random weights of all sizes."""
    every = every_finite_float16()
    steps = np.sort(every[(every.view(np.uint16) < 0x8000) & (every <= 1)].astype(np.float64))  # +0.0 … 1
    ties = (steps[:-1] + steps[1:]) / 2  # exact in float32: halfway has one more bit than float16's 11
    ties32 = ties.astype(np.float32)
    assert np.array_equal(ties32.astype(np.float64), ties)
    beside = np.concatenate([np.nextafter(ties32, np.float32(0)), np.nextafter(ties32, np.float32(1))])
    random = np.exp(RNG.uniform(np.log(1e-12), 0, 200_000)).astype(np.float32)
    tiny = np.array([0.0, 1e-45, 2**-25, 2**-24, 2**-14], np.float32)  # float32 subnormal, float16 edges
    return np.concatenate([steps.astype(np.float32), ties32, beside, random, tiny])


def test_rounding_weights_to_float16_matches_numpy_on_every_case() -> None:
    weights = weights_that_test_every_rounding_case()
    rounded = np.empty(weights.shape, np.float16)
    weights_to_float16(weights, rounded)
    expected = weights.astype(np.float16)
    mismatched = np.flatnonzero(rounded.view(np.uint16) != expected.view(np.uint16))
    assert mismatched.size == 0, [(float(weights[i]), float(rounded[i]), float(expected[i])) for i in mismatched[:5]]


def test_rounding_weights_writes_into_a_strided_view() -> None:
    weights = RNG.random((3, 8, 5)).astype(np.float32)
    out = np.zeros((3, 16, 5), np.float16)
    weights_to_float16(weights, out[:, ::2])
    assert np.array_equal(out[:, ::2], weights.astype(np.float16)) and not out[:, 1::2].any()


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_float16_inf_and_nan_are_found(bad: float) -> None:
    x = np.ones((2, 3), np.float16)
    x[1, 2] = bad
    with pytest.raises(ValueError, match=r"x contains NaN or inf \(first at index \(1, 2\)"):
        check_finite(x, "x")
    check_finite(every_finite_float16(), "every finite float16")  # no false alarm


def test_float16_attention_equals_float32_attention_rounded() -> None:
    # The float16 path computes in float32: its results are the float32 results rounded once.
    q, k, v = (RNG.normal(size=(2, 300, 16)).astype(np.float16) for _ in range(3))
    half = scaled_dot_product_attention(q, k, v)
    single = scaled_dot_product_attention(*(x.astype(np.float32) for x in (q, k, v)))
    assert half.weights.dtype == half.output.dtype == np.float16
    assert np.array_equal(half.weights, single.weights.astype(np.float16))
    assert np.array_equal(half.output, single.output.astype(np.float16))
