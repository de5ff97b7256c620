"""The fast kernel (qkv/_kernel.py) against the article's five steps (plain_attention), and its causal block skipping."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from kernel_support import array_sizes, score_products

from qkv import attention_output, causal_mask, plain_attention, scaled_dot_product_attention
from qkv._kernel import causal_work_share

RNG = np.random.default_rng(2026)
TOLERANCE = {np.float16: 1e-3, np.float32: 2e-6, np.float64: 1e-13}


def assert_same(fast, plain, dtype) -> None:
    assert fast.output.dtype == plain.output.dtype == fast.weights.dtype == plain.weights.dtype == dtype
    assert fast.output.shape == plain.output.shape and fast.weights.shape == plain.weights.shape
    np.testing.assert_allclose(fast.weights.astype(float), plain.weights.astype(float), rtol=0, atol=TOLERANCE[dtype])
    np.testing.assert_allclose(fast.output.astype(float), plain.output.astype(float), rtol=0, atol=4 * TOLERANCE[dtype])


CASES = [  # (q shape, k shape, v shape, options)
    ((5, 3), (7, 3), (7, 2), {}),
    ((2, 4, 33, 8), (2, 4, 33, 8), (2, 4, 33, 5), {"is_causal": True}),
    ((3, 40, 8), (3, 25, 8), (3, 25, 4), {"is_causal": True}),  # n_q > n_k: the last rows see every key
    ((3, 25, 8), (3, 40, 8), (3, 40, 4), {"is_causal": True}),  # n_q < n_k
    ((1, 8, 300, 16), (1, 8, 300, 16), (1, 8, 300, 16), {}),  # several blocks per head
    ((1, 8, 300, 16), (1, 8, 300, 16), (1, 8, 300, 16), {"is_causal": True}),
    ((2, 6, 20, 4), (2, 2, 20, 4), (2, 2, 20, 3), {"enable_gqa": True}),
    ((20, 4), (20, 4), (3, 20, 2), {}),  # v adds a batch dim of its own
    ((6, 4), (9, 4), (9, 2), {"scale": 3.0}),
]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(("q_shape", "k_shape", "v_shape", "options"), CASES)
def test_the_fast_kernel_equals_the_five_steps(dtype, q_shape, k_shape, v_shape, options) -> None:
    q, k, v = (RNG.normal(size=shape).astype(dtype) for shape in (q_shape, k_shape, v_shape))
    assert_same(scaled_dot_product_attention(q, k, v, **options), plain_attention(q, k, v, **options), dtype)


@pytest.mark.parametrize("mask_shape", [(30,), (17, 30), (2, 1, 17, 30), (2, 3, 17, 30)])
def test_the_fast_kernel_equals_the_five_steps_with_a_mask(mask_shape) -> None:
    q, k, v = RNG.normal(size=(2, 3, 17, 8)), RNG.normal(size=(2, 3, 30, 8)), RNG.normal(size=(2, 3, 30, 4))
    mask = RNG.random(mask_shape) < 0.6
    mask[..., 0] = True  # every row keeps a key
    assert_same(scaled_dot_product_attention(q, k, v, mask=mask), plain_attention(q, k, v, mask=mask), np.float64)
    output = attention_output(q, k, v, mask=mask)
    np.testing.assert_allclose(output, plain_attention(q, k, v, mask=mask).output, rtol=0, atol=4 * TOLERANCE[np.float64])


OUTPUT_CASES = CASES + [
    ((1, 4, 1500, 16), (1, 4, 1500, 16), (1, 4, 1500, 8), {}),  # blocks of both threads, more than one buffer's rows
    ((1, 4, 1500, 16), (1, 4, 1500, 16), (1, 4, 1500, 8), {"is_causal": True}),
]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(("q_shape", "k_shape", "v_shape", "options"), OUTPUT_CASES)
def test_the_output_alone_is_the_output_with_the_weights(dtype, q_shape, k_shape, v_shape, options) -> None:
    q, k, v = (RNG.normal(size=shape).astype(dtype) for shape in (q_shape, k_shape, v_shape))
    output = attention_output(q, k, v, **options)
    expected = scaled_dot_product_attention(q, k, v, **options).output
    assert output.dtype == expected.dtype == dtype and output.shape == expected.shape
    np.testing.assert_allclose(output.astype(float), expected.astype(float), rtol=0, atol=TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_output_alone_divides_before_it_sums_when_large_values_could_overflow(dtype) -> None:
    # exp(s - max)·v sums up to n_k values before the division: with |v| at 1/8 of the maximum and
    # 64 keys that would pass the maximum, so these rows are divided first, as with the weights.
    top = np.finfo(dtype).max
    q, k = np.zeros((3, 4), dtype), np.zeros((64, 4), dtype)
    v = np.full((64, 2), top / 8, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        output = attention_output(q, k, v)
    np.testing.assert_allclose(output / (top / 8), 1.0, rtol=0, atol=1e-6)


def test_the_output_alone_makes_no_n_by_n_array(monkeypatch) -> None:
    n = 2048
    q, k, v = (RNG.normal(size=(1, 2, n, 16)).astype(np.float32) for _ in range(3))
    q[0, 0, 0, 0] = 100.0  # a score bound past 30: the row-maximum path, not the key blocks
    with array_sizes(monkeypatch) as sizes:
        attention_output(q, k, v)
    without = max(sizes)
    with array_sizes(monkeypatch) as sizes:
        scaled_dot_product_attention(q, k, v)
    with_weights = max(sizes)
    assert with_weights == 2 * n * n  # the weights of both heads
    assert without <= n * n // 4, f"the output alone made an array of {without:,} numbers for n = {n}"


def test_the_five_steps_are_the_formula() -> None:
    q, k, v = RNG.normal(size=(6, 4)), RNG.normal(size=(6, 4)), RNG.normal(size=(6, 3))
    scores = np.where(causal_mask(6), q @ k.T / 2.0, -np.inf)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    result = plain_attention(q, k, v, is_causal=True)
    np.testing.assert_allclose(result.weights, weights, rtol=0, atol=1e-15)
    np.testing.assert_allclose(result.output, weights @ v, rtol=0, atol=1e-14)


def test_causal_attention_multiplies_only_the_keys_its_rows_see(monkeypatch) -> None:
    n, d = 1024, 16
    q, k, v = (RNG.normal(size=(1, 2, n, d)).astype(np.float32) for _ in range(3))
    with score_products(monkeypatch, d) as computed:
        causal = scaled_dot_product_attention(q, k, v, is_causal=True)
    share = sum(computed) / (2 * n * n)
    assert share == pytest.approx(causal_work_share(n, n)) and share < 0.6
    np.testing.assert_array_equal(causal.weights[..., ~causal_mask(n)], 0.0)  # the skipped keys' weights
    np.testing.assert_allclose(causal.output, plain_attention(q, k, v, is_causal=True).output, rtol=0, atol=2e-6)


def test_one_blocks_overflow_is_reported() -> None:
    q, k = RNG.normal(size=(1, 8, 300, 16)), RNG.normal(size=(1, 8, 300, 16))
    q[0, 5, 290, 0] = k[0, 5, 10, 0] = 1e200  # one block of one head overflows: 1e400
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"q·kᵀ·scale overflowed"):
            scaled_dot_product_attention(q, k, q)
        with pytest.raises(ValueError, match=r"q·kᵀ·scale overflowed"):
            attention_output(q, k, q)
