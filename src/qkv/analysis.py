"""Measurements behind the deep dives: Var[q·k] = d_k, what each scaling does to softmax, asymmetry of A."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from qkv._checks import as_float_array, check_finite, check_int, check_int_sequence, check_not_empty, check_positive_int
from qkv.softmax import softmax

SCALINGS: tuple[str, ...] = ("none", "d_k", "sqrt_d_k")

# Largest random block we draw at once (float64 entries): ~8 MiB, whatever d_k is.
_CHUNK_ELEMENTS = 1 << 20


def _positive_ints(values: Iterable[int], name: str) -> np.ndarray:
    return np.array(check_int_sequence(values, name))


def _generator(seed: int) -> np.random.Generator:
    return np.random.default_rng(check_int(seed, "seed", minimum=0))



def _check_square(array: np.ndarray, name: str) -> None:
    if array.ndim != 2 or array.shape[0] != array.shape[1]:
        raise ValueError(f"{name} must be a square matrix (n, n), got shape {array.shape}")


def _check_probabilities(p: np.ndarray, name: str) -> None:
    """Rows (last axis) must be distributions: non-negative and summing to 1."""
    if p.ndim == 0:
        raise ValueError(f"{name} must have at least 1 dimension (a row of probabilities), got a scalar")
    check_not_empty(p, name)
    check_finite(p, name)
    if (p < 0).any():
        raise ValueError(f"{name} has negative entries; expected probabilities (softmax rows)")
    # float16 rows carry ~1e-3 relative error, so compare with a tolerance of that order.
    sums = p.sum(axis=-1)
    if not np.allclose(sums, 1.0, atol=2e-3):
        worst = float(sums.flat[np.argmax(np.abs(sums - 1.0))])
        raise ValueError(f"{name} rows must sum to 1 along the last axis (one row sums to {worst})")

def _random_dots(rng: np.random.Generator, n_rows: int, n_keys: int, d_k: int) -> np.ndarray:
    """(n_rows, n_keys) dot products q·k, q and k with iid N(0, 1) components, drawn in chunks."""
    rows_per_chunk = max(1, _CHUNK_ELEMENTS // (n_keys * d_k))
    chunks = []
    for start in range(0, n_rows, rows_per_chunk):
        rows = min(rows_per_chunk, n_rows - start)
        q = rng.standard_normal((rows, 1, d_k))  # one query per row
        k = rng.standard_normal((rows, n_keys, d_k))
        chunks.append(np.einsum("rid,rjd->rj", q, k))  # (rows, n_keys)
    return np.concatenate(chunks)


@dataclass(frozen=True, eq=False)
class DotProductVariance:
    """Empirical variance of q·k (≈ d_k) and of q·k/√d_k (≈ 1), one entry per d_k."""

    d_k: np.ndarray
    variance: np.ndarray
    scaled_variance: np.ndarray
    n_samples: int


def dot_product_variance(d_ks: Sequence[int], n_samples: int = 20_000, seed: int = 0) -> DotProductVariance:
    """Measure Var[q·k] for q, k with iid N(0, 1) components: the article derives d_k.

    Dividing by √d_k brings it back to 1, which is why the attention scores are scaled.

    >>> result = dot_product_variance([1, 16, 256])
    >>> print(result.variance.round(0))
    [  1.  16. 260.]
    >>> print(result.scaled_variance.round(1))
    [1. 1. 1.]
    """
    sizes = _positive_ints(d_ks, "d_ks")
    n_samples = check_positive_int(n_samples, "n_samples")
    if n_samples < 2:
        raise ValueError(f"n_samples must be at least 2 (a sample variance needs two samples), got {n_samples}")
    rng = _generator(seed)
    variance = np.empty(len(sizes))
    scaled_variance = np.empty(len(sizes))
    for i, d_k in enumerate(sizes):
        dots = _random_dots(rng, n_samples, 1, int(d_k))[:, 0]  # (n_samples,)
        variance[i] = np.var(dots, ddof=1)
        scaled_variance[i] = np.var(dots / math.sqrt(d_k), ddof=1)
    return DotProductVariance(d_k=sizes, variance=variance, scaled_variance=scaled_variance, n_samples=n_samples)


def scaling_factor(strategy: str, d_k: int) -> float:
    """The factor the scores are multiplied by: "none" → 1, "d_k" → 1/d_k, "sqrt_d_k" → 1/√d_k.

    >>> [scaling_factor(s, 4) for s in SCALINGS]
    [1.0, 0.25, 0.5]
    """
    d_k = check_positive_int(d_k, "d_k")
    if not isinstance(strategy, str):
        raise TypeError(f"strategy must be one of {SCALINGS}, got {strategy!r} of type {type(strategy).__name__}")
    if strategy == "none":
        return 1.0
    if strategy == "d_k":
        return 1.0 / d_k
    if strategy == "sqrt_d_k":
        return 1.0 / math.sqrt(d_k)
    raise ValueError(f"unknown scaling strategy {strategy!r}; choose one of {SCALINGS}")


def softmax_entropy(weights: ArrayLike) -> np.ndarray:
    """Entropy −Σ p·log p of each row (last axis), in nats: 0 for one-hot, log(n) for uniform.

    >>> float(softmax_entropy([1.0, 0.0]))
    0.0
    >>> round(float(softmax_entropy([0.25, 0.25, 0.25, 0.25])), 4)  # log 4
    1.3863
    """
    p = as_float_array(weights, "weights")
    _check_probabilities(p, "weights")
    # 0·log 0 = 0 (the limit); np.where keeps log(0) = -inf out of the sum.
    p_log_p = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    entropy: np.ndarray = 0.0 - np.sum(p_log_p, axis=-1)
    return entropy  # 0.0 - x, not -x: a one-hot row gives 0.0, not -0.0


def softmax_jacobian(p: ArrayLike) -> np.ndarray:
    """∂softmax/∂z = diag(p) − p·pᵀ for a softmax output p (1-D; leading dims batch).

    It is the factor every gradient through the softmax is multiplied by; it vanishes when
    p is one-hot, which is the "vanishing gradient" of unscaled attention.

    >>> softmax_jacobian([0.5, 0.5])
    array([[ 0.25, -0.25],
           [-0.25,  0.25]])
    >>> float(np.abs(softmax_jacobian([1.0, 0.0])).max())
    0.0
    """
    p = as_float_array(p, "p")
    _check_probabilities(p, "p")
    eye = np.eye(p.shape[-1], dtype=p.dtype)
    jacobian: np.ndarray = p[..., :, None] * eye - p[..., :, None] * p[..., None, :]  # (..., n, n)
    return jacobian


@dataclass(frozen=True, eq=False)
class ScalingStudy:
    """Softmax behaviour per scaling strategy, averaged over random queries; arrays are indexed like `d_k`.

    `entropy[s]`: mean row entropy in nats (log(n_keys) = uniform, 0 = one-hot).
    `max_weight[s]`: mean largest weight in a row (1/n_keys = uniform, 1 = one-hot).
    `jacobian_norm[s]`: mean Frobenius norm of the softmax Jacobian (0 = no gradient flows).
    Note that with "d_k" the Jacobian does not vanish: it tends to its value at the
    uniform distribution, √(n_keys − 1)/n_keys. What that scaling loses is selectivity.
    """

    d_k: np.ndarray
    n_keys: int
    entropy: dict[str, np.ndarray]
    max_weight: dict[str, np.ndarray]
    jacobian_norm: dict[str, np.ndarray]


def scaling_study(
    d_ks: Sequence[int],
    strategies: Sequence[str] = SCALINGS,
    n_keys: int = 16,
    n_samples: int = 500,
    seed: int = 0,
) -> ScalingStudy:
    """Softmax of one query against `n_keys` keys (iid N(0, 1) components), for each d_k and scaling.

    All strategies see the same random dot products, so the differences are the scaling's alone.
    Unscaled, the largest weight tends to 1 and the Jacobian to 0 (vanishing gradients);
    dividing by d_k makes rows nearly uniform (entropy → log n_keys, no selectivity);
    dividing by √d_k keeps all three measures roughly constant in d_k.

    >>> study = scaling_study([4, 64, 1024])
    >>> for s in SCALINGS:
    ...     print(f"{s:8}", study.max_weight[s].round(2), study.jacobian_norm[s].round(2))
    none     [0.43 0.84 0.96] [0.32 0.18 0.05]
    d_k      [0.14 0.08 0.07] [0.26 0.24 0.24]
    sqrt_d_k [0.24 0.25 0.25] [0.3  0.3  0.31]
    """
    sizes = _positive_ints(d_ks, "d_ks")
    if isinstance(strategies, str) or not isinstance(strategies, Iterable):
        raise TypeError(f"strategies must be a sequence of names from {SCALINGS}, got {strategies!r}; "
                        f"for one strategy pass ({strategies!r},)")
    strategies = list(strategies)
    for strategy in strategies:  # unknown names are rejected before any work, naming the argument
        if not isinstance(strategy, str) or strategy not in SCALINGS:
            kind = TypeError if not isinstance(strategy, str) else ValueError
            raise kind(f"strategies entry {strategy!r} is not a scaling strategy; choose from {SCALINGS}")
    n_keys = check_positive_int(n_keys, "n_keys")
    n_samples = check_positive_int(n_samples, "n_samples")
    rng = _generator(seed)
    entropy = {s: np.empty(len(sizes)) for s in strategies}
    max_weight = {s: np.empty(len(sizes)) for s in strategies}
    jacobian_norm = {s: np.empty(len(sizes)) for s in strategies}
    for i, d_k in enumerate(sizes):
        dots = _random_dots(rng, n_samples, n_keys, int(d_k))  # (n_samples, n_keys)
        for strategy in strategies:
            weights = softmax(dots * scaling_factor(strategy, int(d_k)))  # (n_samples, n_keys)
            entropy[strategy][i] = softmax_entropy(weights).mean()
            max_weight[strategy][i] = weights.max(axis=-1).mean()
            jacobians = softmax_jacobian(weights)  # (n_samples, n_keys, n_keys)
            jacobian_norm[strategy][i] = np.linalg.norm(jacobians, axis=(-2, -1)).mean()
    return ScalingStudy(d_k=sizes, n_keys=n_keys, entropy=entropy, max_weight=max_weight, jacobian_norm=jacobian_norm)


def asymmetry(weights: ArrayLike) -> float:
    """‖A − Aᵀ‖_F of a square matrix: 0 when token i attends to j exactly as much as j attends to i.

    Meant for attention weights, but any square matrix works (raw scores Q·Kᵀ, for one).

    >>> asymmetry([[0.64, 0.36], [0.36, 0.64]])
    0.0
    >>> round(asymmetry([[1.0, 0.0], [0.5, 0.5]]), 3)
    0.707
    """
    a = as_float_array(weights, "weights")
    _check_square(a, "weights")
    check_finite(a, "weights")
    return float(np.linalg.norm(a - a.T))
