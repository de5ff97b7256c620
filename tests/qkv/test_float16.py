"""The float16 conversions behind qkv's float16 attention agree with numpy's own casts, bit for bit; float16
attention widens a block at a time, never a whole input."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import numpy as np
import pytest

from qkv import attention_output, scaled_dot_product_attention, tiled_attention
from qkv._checks import _PIECE, check_finite
from qkv._float16 import float16_to_float32, in_work_dtype, weights_to_float16, widen_if_finite

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


def test_widening_into_a_buffer_is_the_same_widening() -> None:
    every = every_finite_float16()
    buffer = np.empty(every.size + 5, np.float32)
    widened = in_work_dtype(every.reshape(-1, 64)[:, ::2], buffer)  # a strided block, the front of a longer buffer
    assert np.shares_memory(widened, buffer)
    assert np.array_equal(widened.view(np.uint32), every.reshape(-1, 64)[:, ::2].astype(np.float32).view(np.uint32))



def test_widen_if_finite_widens_every_finite_float16_and_refuses_every_inf_and_nan() -> None:
    every = every_finite_float16().reshape(-1, 64)
    out = np.full(every.shape, 7.0, np.float32)
    assert widen_if_finite(every, out)
    assert np.array_equal(out.view(np.uint32), every.astype(np.float32).view(np.uint32))
    bits = np.arange(2**16, dtype=np.uint32).astype(np.uint16)
    for bad in bits[(bits & 0x7C00) == 0x7C00]:  # +-inf and every NaN
        block = every[:3].copy()
        block.view(np.uint16)[1, 5] = bad
        untouched = np.full(block.shape, 7.0, np.float32)
        assert not widen_if_finite(block, untouched)
        assert (untouched == 7.0).all()  # not filled

def traced_peak(call: Callable[[], np.ndarray]) -> tuple[int, np.ndarray]:
    """The traced peak of a second call (first calls allocate caches of their own: the thread pool, numpy's), and
    what that call returned."""
    call()
    tracemalloc.start()
    try:
        result = call()
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


BLOCK_BUFFERS = 4 * 2**20  # the blocks' scores, queries and partial outputs of two threads, at most
# and the finiteness checks' pieces: _PIECE numbers widened to float32 (4 bytes), a temporary of that size and a
# flag each, in each of two threads (the row-maximum path measured 94 KB over the blocks' 4 MiB without them)
CHECK_PIECES = 2 * _PIECE * (4 + 4 + 1)


@pytest.mark.parametrize(("name", "shape", "attention"), [
    ("key blocks", (1, 8, 4096, 64), lambda q, k, v: attention_output(q, k, v)),
    # scores past ±30: the row-maximum path
    ("row maximum", (1, 8, 4096, 64), lambda q, k, v: attention_output(q, k, v, scale=1.0)),
    ("tiled", (1, 4, 1024, 64), lambda q, k, v: tiled_attention(q, k, v, block_size=128)),
])
def test_float16_needs_no_whole_float32_copy_of_an_input(name: str, shape: tuple[int, ...],
                                                         attention: Callable[..., np.ndarray]) -> None:
    """q, k and v are widened a block at a time (a head at a time for k and v on the row-maximum path, in each
    of two threads), and each block's output rounded when it is done: float16 takes no more memory than float32,
    beside those heads; and it computes what float32 computes from the widened inputs, rounded once. Widened whole,
    float16 took 38.5 MiB of traced peak on the key-block path at (1, 8, 4096, 64), float32 10.6 MiB."""
    q32, k32, v32 = (RNG.standard_normal(shape, dtype=np.float32) for _ in range(3))
    q16, k16, v16 = (x.astype(np.float16) for x in (q32, k32, v32))
    heads = 2 * 2 * shape[-2] * shape[-1] * 4 if name == "row maximum" else 0  # two threads' widened k and v heads
    (half, output16), (single, _) = traced_peak(lambda: attention(q16, k16, v16)), traced_peak(lambda: attention(q32, k32, v32))
    assert half <= single + heads, f"{name}: float16 {half / 2**20:.2f} MiB, float32 {single / 2**20:.2f} MiB"
    if name != "tiled":  # (its tiles, not its inputs, set tiled attention's memory at this size)
        output = q16.nbytes  # float16, as q
        assert half < output + heads + BLOCK_BUFFERS + CHECK_PIECES, f"{name}: {half / 2**20:.2f} MiB beside the output's {output / 2**20:.0f} MiB"
    widened = attention(*(x.astype(np.float32) for x in (q16, k16, v16)))  # the same blocks, in the same order
    np.testing.assert_array_equal(output16, widened.astype(np.float16))
