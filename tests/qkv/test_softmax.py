"""softmax: the article's numbers, stability, masking with -inf, dtypes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from qkv import softmax


def test_article_first_row() -> None:
    # e^1.15 ≈ 3.16, e^0.58 ≈ 1.79, total 4.95 -> 0.64, 0.36
    weights = softmax(np.array([2.0, 1.0]) / np.sqrt(3))
    np.testing.assert_allclose(weights, [0.64, 0.36], atol=0.005)


def test_matches_the_definition() -> None:
    z = np.array([[0.3, -1.2, 2.0], [5.0, 5.0, 5.0]])
    expected = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(softmax(z), expected, rtol=1e-12)


def test_rows_sum_to_one_along_the_chosen_axis() -> None:
    z = np.random.default_rng(0).normal(size=(3, 4, 5))
    for axis in (0, 1, -1):
        np.testing.assert_allclose(softmax(z, axis=axis).sum(axis=axis), 1.0, rtol=1e-12)


@pytest.mark.parametrize("logit", [1e4, -1e4, 1e300])
def test_no_overflow_for_huge_logits(logit: float) -> None:
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # underflow to 0 is fine
        weights = softmax([[logit, 0.0, -logit]])
    assert np.isfinite(weights).all()
    np.testing.assert_allclose(weights.sum(), 1.0)


def test_minus_inf_entries_get_exactly_zero_weight() -> None:
    weights = softmax([[1.0, -np.inf, 1.0]])
    assert weights[0, 1] == 0.0
    np.testing.assert_allclose(weights, [[0.5, 0.0, 0.5]])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_dtype_is_kept(dtype: type) -> None:
    weights = softmax(np.array([[1.0, 2.0, 3.0]], dtype=dtype))
    assert weights.dtype == dtype
    np.testing.assert_allclose(weights.sum(), 1.0, rtol=2e-3)


@pytest.mark.parametrize("value", [[1, 2, 3], np.array([1, 2, 3], dtype=np.int32), [True, False]])
def test_ints_and_lists_become_float64(value: object) -> None:
    assert softmax(value).dtype == np.float64


def test_float16_softmax_of_a_sum_beyond_the_float16_maximum() -> None:
    # Reproducer: softmax(np.zeros(70000, np.float16)) returned zeros with a RuntimeWarning (Σ exp = 70,000 > 65,504).
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weights = softmax(np.zeros(70000, np.float16))
    assert weights.dtype == np.float16
    assert (weights == np.float16(1 / 70000)).all()


@pytest.mark.parametrize("seed", range(20))
def test_float16_softmax_is_float32_softmax_rounded(seed: int) -> None:
    # Reproducer: softmax([0, -5.4, -7.9, -2.3] in float16) was computed in float16 and off by up to 7.8 ulp.
    rng = np.random.default_rng(seed)
    x = np.array([0, -5.4, -7.9, -2.3], np.float16) if seed == 0 else (rng.normal(size=(8, 50)) * 4).astype(np.float16)
    weights = softmax(x)
    exact = softmax(x.astype(np.float64))
    ulp = np.spacing(weights.astype(np.float64).astype(np.float16)).astype(np.float64)
    assert weights.dtype == np.float16
    assert (np.abs(weights.astype(np.float64) - exact) <= 0.5 * ulp * (1 + 1e-3)).all()


@pytest.mark.parametrize("axis", [True, 1.0, None, "1"])
def test_softmax_axis_must_be_an_int(axis: object) -> None:
    with pytest.raises(TypeError, match=r"^axis must be an int, got"):
        softmax(np.ones((2, 2)), axis=axis)


@pytest.mark.parametrize("under", ["warn", "raise", "print", "call"])
def test_softmax_is_quiet_whatever_np_seterr_says_about_underflow(under: str) -> None:
    from qkv import scaled_dot_product_attention, tiled_attention

    mask = np.array([[True, False], [True, True]])
    q, k, v = [[100.0], [1.0]], [[1.0], [-100.0]], [[1.0], [2.0]]
    with np.errstate(under=under, call=lambda *args: pytest.fail(f"called with {args}")):
        assert softmax([0.0, -1e4]).tolist() == [1.0, 0.0]
        assert scaled_dot_product_attention(q, k, v, mask=mask).output.ravel().tolist() == [1.0, 1.0]
        assert tiled_attention(q, k, v, mask=mask).ravel().tolist() == [1.0, 1.0]


@pytest.mark.parametrize("under", ["warn", "raise"])
def test_float16_results_round_tiny_numbers_quietly_whatever_np_seterr_says(under: str) -> None:
    # Rounding a float32 weight or output below float16's range to a subnormal or 0 is the dtype's rounding, not an error.
    from qkv import attention_output, plain_attention, scaled_dot_product_attention, tiled_attention

    q = np.array([[4.0], [0.0]], np.float16)
    k, v = np.array([[4.0], [-4.0]], np.float16), np.array([[1e-4], [1e-4]], np.float16)
    with np.errstate(under=under), warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(softmax(np.array([0.0, -20.0], np.float16)).astype(float), [1.0, 2.06e-9], rtol=0, atol=1e-7)
        for attention in (scaled_dot_product_attention, plain_attention):
            result = attention(q, k, v, scale=1.0)
            assert result.weights.dtype == np.float16 and float(result.weights[0, 1]) < 1e-6
        for output in (attention_output(q, k, v, scale=1.0), tiled_attention(q, k, v, scale=1.0)):
            np.testing.assert_allclose(output.astype(float), 1e-4, rtol=1e-3)
