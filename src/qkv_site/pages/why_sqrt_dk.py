"""The numbers of the page “缩放因子为什么是 √dₖ？ / Why is the scaling factor √dₖ?”, from `qkv.analysis`.

Each sentence of the page that describes these numbers (the draw agrees with Var = d_k, the unscaled
Jacobian norm is above the scaled one at small d_k, …) is checked here against the numbers it
describes: when they stop supporting it, the build stops naming it. The random draws are seeded, so
the table, the exercises and the figure show the same samples on every build.

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> values(project)["variance_rows"][2].measured, values(project)["uniform_entropy"]
('63.25', '2.77')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from qkv import scaled_dot_product_attention
from qkv.analysis import SCALINGS, ScalingStudy, dot_product_variance, scaling_factor, scaling_study
from qkv.examples import worked_example
from qkv_site.pages import learned_attention
from qkv_site.project import Project
from qkv_site.values.claims import Claims, Comparison, at_most, greater, largest, less
from qkv_site.values.formatting import number, percent

PAGE = "why-sqrt-dk.md"
D_KS_TABLE = (1, 8, 64, 512)  # the variance table
# The d_k of the figure the gradient-region note describes: qkv_site.figures.softmax_saturation.D_KS (held equal by
# tests/pages/test_why_sqrt_dk.py), not imported from there, so that a build with no figure to draw does not load matplotlib.
D_KS_FIGURE = tuple(2**i for i in range(11))  # 1 … 1024
SEED = 0  # every draw of the page
N_PAIRS = 20_000  # the page says “twenty thousand pairs” in words
TOLERANCE = 0.05  # how far a measured variance may be from the derived one and still be said to agree
STRATEGY_D_K, N_KEYS, N_QUERIES = 512, 16, 500  # the three-strategies table
EXERCISE_1_D_K = 64
SIGMA, EXERCISE_2_D_K = 2.0, 64  # exercise 2
W_Q_FACTOR = 5  # exercise 3: every 1 of W_Q becomes 5


claims = Claims(PAGE)


def _close(measured: float, derived: float) -> Comparison:
    return at_most(abs(measured - derived), TOLERANCE * derived, scale=derived)


@dataclass(frozen=True)
class VarianceRow:
    """One row of the variance table: d_k, Var[q·k] derived (d_k) and measured, and measured after ÷ √d_k."""

    d_k: str
    theory: str
    measured: str
    scaled: str


def _variance() -> tuple[list[VarianceRow], dict[str, str]]:
    study = dot_product_variance(D_KS_TABLE, n_samples=N_PAIRS, seed=SEED)
    measured = list(zip(study.d_k, study.variance, study.scaled_variance, strict=True))
    claims.require(*(_close(float(v), float(d)) for d, v, _ in measured), *(_close(float(s), 1.0) for _, _, s in measured),
                   sentence="the random draw agrees with Var[q·k] = d_k, and with 1 after dividing by √d_k")
    rows = [VarianceRow(str(d), str(d), number(v), number(s)) for d, v, s in measured]
    i = list(study.d_k).index(EXERCISE_1_D_K)
    std = math.sqrt(EXERCISE_1_D_K)
    exercise_1 = {"d_k": str(EXERCISE_1_D_K), "std": number(std), "n_samples": f"{study.n_samples:,}",
                  "variance": rows[i].measured, "scaled": rows[i].scaled,
                  "unscaled_ratio": f"{math.exp(std):,.0f}", "scaled_ratio": number(math.e)}
    return rows, exercise_1


def _strategies() -> dict[str, dict[str, str]]:
    measured = scaling_study([STRATEGY_D_K], n_keys=N_KEYS, n_samples=N_QUERIES, seed=SEED)
    largest = {s: float(measured.max_weight[s][0]) for s in SCALINGS}
    entropy = {s: float(measured.entropy[s][0]) for s in SCALINGS}
    claims.require(greater(largest["none"], largest["sqrt_d_k"]), greater(largest["sqrt_d_k"], largest["d_k"]),
                   less(entropy["none"], entropy["sqrt_d_k"]), less(entropy["sqrt_d_k"], entropy["d_k"]),
                   sentence="no scaling is the closest to one-hot, dividing by d_k the closest to uniform, √d_k in between")
    return {s: {"max_weight": number(largest[s]), "entropy": number(entropy[s])} for s in SCALINGS}


def _check_saturation_figure(curves: ScalingStudy) -> None:
    """The figure's caption and alt text describe its curves: check them against the curves."""
    spread = {s: max(float(np.ptp(c[s]) / np.min(c[s])) for c in (curves.max_weight, curves.jacobian_norm)) for s in SCALINGS}
    none_jacobian = curves.jacobian_norm["none"]
    peak = none_jacobian.max()
    claims.require(greater(curves.max_weight["none"][-1], 0.9), less(none_jacobian[-1], peak / 4),
                   less(np.diff(none_jacobian[largest(none_jacobian):]), 0, scale=peak),
                   sentence="figure: without scaling the largest weight tends to 1 and the Jacobian collapses towards 0 as "
                            "d_k grows")
    claims.require(less(abs(curves.max_weight["d_k"][-1] - 1 / curves.n_keys), 0.1 / curves.n_keys),
                   sentence="figure: dividing by d_k makes the output uniform")
    claims.require(less(spread["sqrt_d_k"], 0.25), greater(min(spread["none"], spread["d_k"]), 1),
                   sentence="figure: only with √d_k do the curves hardly change with d_k")


def _gradient_region(curves: ScalingStudy) -> dict[str, Any]:
    unscaled, scaled = curves.jacobian_norm["none"], curves.jacobian_norm["sqrt_d_k"]
    sentence = ("at some d_k of the figure the unscaled Jacobian norm is above the scaled one, "
                "and scores spread much further (the largest d_k) saturate softmax")
    above = [i for i in range(len(curves.d_k)) if claims.decide(greater(unscaled[i], scaled[i]), sentence=sentence)]
    claims.require(bool(above), less(unscaled[-1], scaled[-1]), sentence=sentence)
    widest = above[largest([unscaled[i] - scaled[i] for i in above], scale=float(unscaled.max()))]
    return {"above": [str(curves.d_k[i]) for i in above], "widest_d_k": str(curves.d_k[widest]),
            "unscaled": number(unscaled[widest]), "scaled": number(scaled[widest])}


def _exercise_2() -> dict[str, str]:
    rng = np.random.default_rng(SEED)
    q = SIGMA * rng.standard_normal((N_PAIRS, EXERCISE_2_D_K))  # (n_samples, d_k), components with variance σ²
    k = SIGMA * rng.standard_normal((N_PAIRS, EXERCISE_2_D_K))
    dots = (q * k).sum(axis=-1)  # (n_samples,)
    theory, divisor = EXERCISE_2_D_K * SIGMA**4, SIGMA**2 * math.sqrt(EXERCISE_2_D_K)
    measured, scaled = float(dots.var(ddof=1)), float((dots / divisor).var(ddof=1))
    claims.require(_close(measured, theory), _close(scaled, 1.0), sentence="Var[q·k] = d_k·σ⁴, and 1 after dividing by σ²·√d_k")
    return {"sigma": number(SIGMA), "d_k": str(EXERCISE_2_D_K), "theory": number(theory), "measured": number(measured),
            "divisor": number(divisor), "scaled": number(scaled)}


def _exercise_3() -> dict[str, dict[str, str]]:
    example = worked_example(w_q=W_Q_FACTOR * worked_example().w_q)
    own = {}
    rows = {}
    for strategy in SCALINGS:
        _, weights = scaled_dot_product_attention(example.q, example.k, example.v, scale=scaling_factor(strategy, example.d_k))
        own[strategy] = float(weights[0, 0])
        rows[strategy] = {"own": percent(weights[0, 0]), "other": percent(weights[0, 1])}
    claims.require(greater(own["none"], 0.99), greater(own["none"], own["sqrt_d_k"]), greater(own["sqrt_d_k"], own["d_k"]),
                   sentence="unscaled, almost all of the attention of “I” is on one word; "
                   "÷ d_k gives the flattest row, ÷ √d_k lies in between")
    return rows


@cache
def values(project: Project) -> dict[str, Any]:
    variance_rows, exercise_1 = _variance()
    curves = scaling_study(D_KS_FIGURE)  # the random experiment the figure draws, for the gradient note and the caption
    shown = {
        "variance_rows": variance_rows,
        "strategy_d_k": str(STRATEGY_D_K),
        "n_queries": str(N_QUERIES),
        "n_keys": str(N_KEYS),
        "uniform_entropy": number(math.log(N_KEYS)),  # the entropy of a uniform row, ln n_keys
        "strategies": _strategies(),
        "gradient": _gradient_region(curves),
        "exercise_1": exercise_1,
        "exercise_2": _exercise_2(),
        "exercise_3": _exercise_3(),
        "trained": learned_attention.values(project),  # the editor's note: findings that hold in every seed
    }
    _check_saturation_figure(curves)  # last: a changed study fails the sentences that print its numbers first
    return shown
