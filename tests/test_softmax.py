"""softmax: the article's numbers, stability, masking with -inf, dtypes."""

from __future__ import annotations

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
