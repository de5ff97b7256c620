"""qkv.analysis: Var[q·k] = d_k, the three scalings, the softmax Jacobian, asymmetry."""

from __future__ import annotations

import numpy as np
import pytest

from qkv import softmax
from qkv.analysis import (
    SCALINGS,
    asymmetry,
    dot_product_variance,
    scaling_factor,
    scaling_study,
    softmax_entropy,
    softmax_jacobian,
)
from qkv.examples import worked_example

D_KS = (1, 4, 16, 64, 256, 1024)


@pytest.fixture(scope="module")
def variance():
    return dot_product_variance(D_KS)


@pytest.fixture(scope="module")
def study():
    return scaling_study(D_KS)


def test_variance_is_d_k(variance) -> None:
    assert np.array_equal(variance.d_k, D_KS) and variance.n_samples == 20_000
    relative_error = np.abs(variance.variance / variance.d_k - 1)
    assert np.all(relative_error < 0.05), relative_error


def test_scaled_variance_is_one(variance) -> None:
    np.testing.assert_allclose(variance.scaled_variance, 1.0, atol=0.05)
    np.testing.assert_allclose(variance.scaled_variance, variance.variance / variance.d_k, rtol=1e-12)


def test_variance_is_reproducible(variance) -> None:
    again = dot_product_variance(D_KS)
    assert np.array_equal(again.variance, variance.variance)
    other = dot_product_variance(D_KS, seed=1)
    assert not np.array_equal(other.variance, variance.variance)


def test_scaling_factors() -> None:
    assert SCALINGS == ("none", "d_k", "sqrt_d_k")
    assert scaling_factor("none", 64) == 1.0
    assert scaling_factor("d_k", 64) == 1 / 64
    assert scaling_factor("sqrt_d_k", 64) == 1 / 8


def test_entropy_extremes() -> None:
    assert float(softmax_entropy([0.0, 1.0, 0.0])) == 0.0
    np.testing.assert_allclose(softmax_entropy(np.full((2, 8), 1 / 8)), np.log(8))


def test_jacobian_is_the_derivative_of_softmax() -> None:
    z = np.array([0.3, -1.0, 2.0, 0.5])
    jacobian = softmax_jacobian(softmax(z))
    eps = 1e-6
    numeric = np.stack([(softmax(z + eps * e) - softmax(z - eps * e)) / (2 * eps) for e in np.eye(4)], axis=1)
    np.testing.assert_allclose(jacobian, numeric, atol=1e-9)
    np.testing.assert_allclose(jacobian, jacobian.T)  # symmetric
    np.testing.assert_allclose(jacobian.sum(axis=0), 0.0, atol=1e-15)  # shifting all logits changes nothing


def test_jacobian_batches() -> None:
    p = softmax(np.random.default_rng(0).normal(size=(3, 5)))
    batched = softmax_jacobian(p)
    assert batched.shape == (3, 5, 5)
    np.testing.assert_allclose(batched[1], softmax_jacobian(p[1]))


def test_unscaled_softmax_saturates(study) -> None:
    # d_k up: one key takes (nearly) all the weight and the gradient through softmax vanishes.
    assert np.all(np.diff(study.max_weight["none"]) > 0)
    assert np.all(np.diff(study.entropy["none"]) < 0)
    assert study.max_weight["none"][-1] > 0.95
    assert np.all(np.diff(study.jacobian_norm["none"][1:]) < 0)  # from d_k = 4 on
    assert study.jacobian_norm["none"][-1] < 0.2 * study.jacobian_norm["sqrt_d_k"][-1]


def test_dividing_by_d_k_flattens_softmax(study) -> None:
    # d_k up: weights approach uniform, 1/n_keys each; the softmax stops choosing.
    uniform_entropy = np.log(study.n_keys)
    assert np.all(np.diff(study.entropy["d_k"]) > 0)
    assert np.all(np.diff(study.max_weight["d_k"]) < 0)
    assert study.entropy["d_k"][-1] > 0.99 * uniform_entropy
    assert study.max_weight["d_k"][-1] < 1.1 / study.n_keys
    # Its Jacobian tends to the value at the uniform distribution, √(n−1)/n, below √d_k's.
    np.testing.assert_allclose(study.jacobian_norm["d_k"][-1], np.sqrt(study.n_keys - 1) / study.n_keys, rtol=0.01)
    assert np.all(study.jacobian_norm["d_k"][1:] < study.jacobian_norm["sqrt_d_k"][1:])


def test_dividing_by_sqrt_d_k_stays_put(study) -> None:
    # the same behaviour at every d_k ...
    for measure in (study.entropy, study.max_weight, study.jacobian_norm):
        values = measure["sqrt_d_k"]
        assert values.max() / values.min() < 1.25
    # ... between one-hot and uniform ...
    for measure in (study.entropy, study.max_weight):
        values = measure["sqrt_d_k"][1:]
        assert np.all((measure["d_k"][1:] - values) * (measure["none"][1:] - values) < 0)
    # ... and with the largest gradient through the softmax of the three, from d_k = 16 on.
    later = study.d_k >= 16
    assert np.all(study.jacobian_norm["sqrt_d_k"][later] > study.jacobian_norm["d_k"][later])
    assert np.all(study.jacobian_norm["sqrt_d_k"][later] > study.jacobian_norm["none"][later])


def test_scaling_study_is_reproducible(study) -> None:
    again = scaling_study(D_KS)
    for strategy in SCALINGS:
        assert np.array_equal(again.entropy[strategy], study.entropy[strategy])
        assert np.array_equal(again.jacobian_norm[strategy], study.jacobian_norm[strategy])
    partial = scaling_study([16], strategies=("sqrt_d_k",), n_keys=4, n_samples=10, seed=3)
    assert set(partial.entropy) == {"sqrt_d_k"} and partial.entropy["sqrt_d_k"].shape == (1,)


def test_asymmetry() -> None:
    assert asymmetry(worked_example().weights) < 1e-12  # the article's 2×2 happens to be symmetric
    a = np.array([[0.9, 0.1], [0.3, 0.7]])
    np.testing.assert_allclose(asymmetry(a), np.sqrt(2) * 0.2)


def test_dot_product_variance_needs_two_samples() -> None:
    # Reproducer: dot_product_variance([4], n_samples=1) returned NaN with four warnings.
    with pytest.raises(ValueError, match=r"n_samples must be at least 2"):
        dot_product_variance([4], n_samples=1)


def test_analysis_arguments_are_named_in_their_errors() -> None:
    from qkv.complexity import memory_table

    with pytest.raises(TypeError, match=r"^d_ks must be a sequence of positive ints, got 5"):
        dot_product_variance(5)
    with pytest.raises(TypeError, match=r"^ns must be a sequence of positive ints, got 5"):
        memory_table(5)
    with pytest.raises(TypeError, match=r"^seed must be a non-negative int, got 'a'"):
        dot_product_variance([4], seed="a")
    with pytest.raises(TypeError, match=r"^strategies must be a sequence of names .* got 'none'"):
        scaling_study([4], strategies="none")
    with pytest.raises(TypeError, match=r"^strategy must be one of .* got None"):
        scaling_factor(None, 4)
