"""attention_output's key-block path (qkv/_output_blocks.py) against the row-maximum path and the five steps."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from kernel_support import array_sizes, score_products

import qkv._output_blocks
from qkv import attention_output, plain_attention
from qkv._inputs import attention_inputs, ungroup_heads
from qkv._kernel import attention_kernel
from qkv._magnitudes import PIECE
from qkv._output_blocks import CAUSAL_ROWS, KEYS, ROWS, SCORE_BOUND, applies, output_in_key_blocks, score_bound

RNG = np.random.default_rng(2027)
TOLERANCE = {np.float16: 1e-3, np.float32: 2e-6, np.float64: 1e-13}


def inputs_of(q, k, v, **options):
    defaults = {"mask": None, "scale": None, "is_causal": False, "enable_gqa": False}
    return attention_inputs(q, k, v, **(defaults | options))


CASES = [  # (q shape, k shape, v shape, options); n_k > 512 takes the keys in more than one block
    ((5, 3), (7, 3), (7, 2), {}),
    ((2, 4, 33, 8), (2, 4, 33, 8), (2, 4, 33, 5), {"is_causal": True}),
    ((3, 700, 8), (3, 600, 8), (3, 600, 4), {"is_causal": True}),  # n_q > n_k: the last rows see every key
    ((3, 600, 8), (3, 1300, 8), (3, 1300, 4), {"is_causal": True}),  # n_q < n_k, three key blocks
    ((1, 4, 1500, 16), (1, 4, 1500, 16), (1, 4, 1500, 8), {}),  # row blocks on both threads, three key blocks
    ((1, 4, 1500, 16), (1, 4, 1500, 16), (1, 4, 1500, 8), {"is_causal": True}),
    ((2, 6, 20, 4), (2, 2, 20, 4), (2, 2, 20, 3), {"enable_gqa": True}),
    ((2, 1, 40, 4), (2, 3, 40, 4), (1, 3, 40, 2), {}),  # q and v broadcast over heads and batch
    ((6, 4), (9, 4), (9, 2), {"scale": 2.0}),
]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(("q_shape", "k_shape", "v_shape", "options"), CASES)
def test_the_key_blocks_give_the_row_maximums_output(dtype, q_shape, k_shape, v_shape, options) -> None:
    q, k, v = (RNG.normal(size=shape).astype(dtype) for shape in (q_shape, k_shape, v_shape))
    inputs = inputs_of(q, k, v, **options)
    assert applies(inputs), f"scores within ±{score_bound(inputs.q, inputs.k, inputs.scale):.1f}"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        blocks = ungroup_heads(output_in_key_blocks(inputs), inputs)  # grouped-query attention: heads one axis again
    row_maximum = ungroup_heads(attention_kernel(inputs, keep_weights=False)[0], inputs)
    plain = plain_attention(q, k, v, **options).output
    assert blocks.dtype == row_maximum.dtype == plain.dtype == dtype and blocks.shape == plain.shape
    np.testing.assert_allclose(blocks.astype(float), row_maximum.astype(float), rtol=0, atol=TOLERANCE[dtype])
    np.testing.assert_allclose(blocks.astype(float), plain.astype(float), rtol=0, atol=4 * TOLERANCE[dtype])


@pytest.mark.parametrize("mask_shape", [(1100,), (17, 1100), (2, 1, 17, 1100), (2, 3, 17, 1100)])
def test_the_key_blocks_hide_what_a_mask_hides(mask_shape) -> None:
    q, k, v = RNG.normal(size=(2, 3, 17, 8)), RNG.normal(size=(2, 3, 1100, 8)), RNG.normal(size=(2, 3, 1100, 4))
    mask = RNG.random(mask_shape) < 0.3
    mask[..., :600] = False  # the first key block hidden from every row, the second from some
    mask[..., 1099] = True  # every row keeps a key
    inputs = inputs_of(q, k, v, mask=mask)
    assert applies(inputs)
    expected = plain_attention(q, k, v, mask=mask).output
    np.testing.assert_allclose(output_in_key_blocks(inputs), expected, rtol=0, atol=4 * TOLERANCE[np.float64])


def test_the_bound_holds_every_score() -> None:
    q, k = RNG.normal(size=(3, 50, 8)) * 3, RNG.normal(size=(3, 70, 8))
    bound = score_bound(q, k, 0.5)
    scores = q @ np.swapaxes(k, -1, -2) * 0.5
    assert np.abs(scores).max() <= bound
    longest_q = np.linalg.norm(q, axis=-1).max()
    longest_k = np.linalg.norm(k, axis=-1).max()
    assert bound == pytest.approx(0.5 * longest_q * longest_k)


def scaled_to_bound(bound: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q, k, v (float32, d = 16, scale 1/4) whose score bound is `bound`, with a query and a key that reach it."""
    q, k, v = (RNG.normal(size=(40, 16)) for _ in range(3))
    q, k = (x / np.linalg.norm(x, axis=-1).max() for x in (q, k))  # the longest has length 1
    q[0] = k[0] = np.eye(16)[3]  # q_0·k_0 = 1·1: this score is the bound
    length = math.sqrt(4 * bound)  # 1/4 · length · length = bound
    return (q * length).astype(np.float32), (k * length).astype(np.float32), v.astype(np.float32)


def test_scores_up_to_the_bound_take_the_key_blocks_and_larger_ones_the_row_maximum(monkeypatch) -> None:
    below, above = scaled_to_bound(SCORE_BOUND * 0.99), scaled_to_bound(SCORE_BOUND * 1.01)
    assert applies(inputs_of(*below)) and not applies(inputs_of(*above))
    taken = []
    original = qkv._output_blocks.output_in_key_blocks
    monkeypatch.setattr(qkv._output_blocks, "output_in_key_blocks", lambda inputs: taken.append("blocks") or original(inputs))
    for q, k, v in (below, above):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            output = attention_output(q, k, v)
        np.testing.assert_allclose(output, plain_attention(q, k, v).output, rtol=0, atol=4 * TOLERANCE[np.float32])
    assert taken == ["blocks"]


def test_values_too_large_or_too_small_for_the_raw_exponentials_take_the_row_maximum() -> None:
    q, k = RNG.normal(size=(8, 4)).astype(np.float32), RNG.normal(size=(64, 4)).astype(np.float32)
    v = RNG.normal(size=(64, 2)).astype(np.float32)
    top, tiny = float(np.finfo(np.float32).max), float(np.finfo(np.float32).tiny)
    assert applies(inputs_of(q, k, v))
    assert not applies(inputs_of(q, k, v * np.float32(top / 1e3 / np.abs(v).max())))  # e^bound · |v| · 64 keys overflows
    smallest = v.copy()
    smallest[3, 1] = np.float32(tiny * 1e3)  # e^-bound · |v| would be subnormal: lost precision
    assert not applies(inputs_of(q, k, smallest))
    zeros = v.copy()
    zeros[:, 0] = 0.0  # zeros multiply to zeros exactly: they do not count
    assert applies(inputs_of(q, k, zeros))
    for values in (v * np.float32(top / 1e3 / np.abs(v).max()), smallest):
        np.testing.assert_allclose(attention_output(q, k, values) / np.abs(values).max(),
                                   plain_attention(q, k, values).output / np.abs(values).max(), rtol=0, atol=1e-6)


def test_a_tiny_value_of_v_is_found_in_any_piece_of_it() -> None:
    # applies() looks at |v| a piece of PIECE numbers at a time: a tiny entry in the last piece, after
    # pieces of zeros and ordinary values, still sends the call to the row maximum.
    q, k = RNG.normal(size=(8, 4)).astype(np.float32), RNG.normal(size=(PIECE + 3, 4)).astype(np.float32)
    v = RNG.normal(size=(PIECE + 3, 2)).astype(np.float32)
    v[: PIECE // 4] = 0.0
    assert applies(inputs_of(q, k, v))
    v[-1, 1] = np.float32(np.finfo(np.float32).tiny * 1e3)
    assert not applies(inputs_of(q, k, v))


def test_v_with_batch_dims_of_its_own_and_empty_inputs_take_the_row_maximum() -> None:
    q, k, v = RNG.normal(size=(20, 4)), RNG.normal(size=(20, 4)), RNG.normal(size=(3, 20, 2))
    assert not applies(inputs_of(q, k, v))
    assert not applies(inputs_of(np.zeros((0, 4)), k, v[0]))
    assert not applies(inputs_of(q, k, np.zeros((20, 0))))


def test_causal_key_blocks_multiply_only_the_keys_their_rows_see(monkeypatch) -> None:
    n, d = 2048, 16
    q, k, v = (RNG.normal(size=(1, 2, n, d)).astype(np.float32) for _ in range(3))
    inputs = inputs_of(q, k, v, is_causal=True)
    with score_products(monkeypatch, d) as computed:
        output = output_in_key_blocks(inputs)
    rows = CAUSAL_ROWS  # causal row blocks: block r computes keys 0 … rows·(r + 1)
    expected = sum(min(r0 + rows, n) * rows for r0 in range(0, n, rows)) / (n * n)
    assert sum(computed) / (2 * n * n) == pytest.approx(expected) and expected < 0.6
    np.testing.assert_allclose(output, plain_attention(q, k, v, is_causal=True).output, rtol=0, atol=2e-6)


def test_the_key_blocks_make_no_n_by_n_array(monkeypatch) -> None:
    n = 2048
    q, k, v = (RNG.normal(size=(1, 2, n, 16)).astype(np.float32) for _ in range(3))
    inputs = inputs_of(q, k, v)
    with array_sizes(monkeypatch) as sizes:
        output_in_key_blocks(inputs)
    assert max(sizes) == ROWS * KEYS, f"the largest array has {max(sizes):,} numbers, not one block's scores"


def test_a_scale_above_one_that_would_overflow_q_takes_the_row_maximum() -> None:
    q = np.full((2, 1), 1e3, np.float32)
    k, v = np.full((3, 1), 1e-38, np.float32), np.arange(3, dtype=np.float32)[:, None]
    inputs = inputs_of(q, k, v, scale=1e36)  # q·scale = 1e39 overflows float32; every score is 1e1
    assert score_bound(inputs.q, inputs.k, inputs.scale) <= SCORE_BOUND and not applies(inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(attention_output(q, k, v, scale=1e36), plain_attention(q, k, v, scale=1e36).output, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_bound_of_tiny_or_huge_keys_neither_underflows_nor_overflows(dtype) -> None:
    tiny = np.finfo(dtype).tiny
    q = np.full((2, 4), 1e4, dtype)
    k = np.full((3, 4), np.sqrt(tiny) / 10, dtype)  # ‖k‖² underflows to 0 if squared as it is
    scale = 1e3 / (4 * 1e4 * float(k[0, 0]))  # every score is 1e3: far past the bound
    assert score_bound(q, k, scale) == pytest.approx(1e3, rel=1e-5)
    assert not applies(inputs_of(q, k, np.ones((3, 2), dtype), scale=scale))
    huge = np.full((3, 4), np.sqrt(np.finfo(dtype).max), dtype)  # ‖k‖² overflows if squared as it is
    assert score_bound(np.ones((2, 4), dtype), huge, 1.0) == pytest.approx(2 * 2 * float(huge[0, 0]), rel=1e-5)  # ‖q‖ = ‖(1, 1, 1, 1)‖ = 2


@pytest.mark.parametrize(("q_shape", "mask_shape"), [((4, 8), (4, 1)), ((4, 8), (1, 1)), ((4, 8), ()),
                                                     ((2, 4, 8), (1, 1, 1)), ((2, 4, 8), (2, 4, 1))])
def test_a_mask_whose_key_axis_has_size_one_spreads_over_every_key_block(q_shape, mask_shape) -> None:
    # n_k = 600 takes the keys in two blocks of the key-block path; the mask's key axis of 1 covers both.
    q, k, v = RNG.normal(size=q_shape), RNG.normal(size=q_shape[:-2] + (600, 8)), RNG.normal(size=q_shape[:-2] + (600, 3))
    mask = np.ones(mask_shape, bool)
    assert applies(inputs_of(q, k, v, mask=mask))
    np.testing.assert_allclose(attention_output(q, k, v, mask=mask), plain_attention(q, k, v).output,
                               rtol=0, atol=4 * TOLERANCE[np.float64])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_sizes_found_a_piece_at_a_time_are_those_of_the_whole_array(dtype) -> None:
    from qkv._magnitudes import magnitudes

    x = RNG.normal(size=(3, PIECE // 8 + 5, 16)).astype(dtype)  # several pieces, the last one short
    x[2, -1, 3] = dtype(1e-30)  # the smallest in the last piece
    x[1, 0, :4] = 0.0
    for array in (x, x[:, ::2], np.broadcast_to(x[0], x.shape)):  # contiguous, strided, a broadcast view
        sizes = magnitudes(array)
        eps = float(np.finfo(dtype).eps)
        assert sizes.largest == float(np.abs(array).max())  # a max is exact: no rounding
        assert sizes.smallest_nonzero == float(np.abs(array)[array != 0].min())
        longest = float(np.sqrt((array.astype(np.float64) ** 2).sum(axis=-1)).max())
        assert abs(sizes.longest_row - longest) <= 16 * eps * longest  # a sum of 16 squares
    x[2, -1, 5] = np.nan
    assert not magnitudes(x).finite
    with pytest.raises(ValueError, match=re.escape(f"v contains NaN or inf (first at index (2, {x.shape[1] - 1}, 5)")):
        attention_output(np.ones((3, 2, 4), dtype), np.ones(x.shape[:2] + (4,), dtype), x)
