"""What the trained-model figures share: the committed runs (read, never trained), seed curves and a bar panel of "it"'s rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes

from qkv_site.figures.style import COLORS, SCALING_COLORS, SMALL_SIZE, Theme
from qkv_site.learned_results import LearnedResults, results
from qkv_site.project import Project

LAYER_COLORS = (COLORS["q"], SCALING_COLORS["sqrt_d_k"], COLORS["v"])  # layer 1, layer 2, rollout
SEED_LINE: dict[str, Any] = {"linewidth": 0.7, "alpha": 0.45}  # one seed
MEDIAN_LINE: dict[str, Any] = {"linewidth": 2.4}  # the median over seeds


def runs(project: Project) -> LearnedResults:
    """The committed learned-attention results (benchmarks/results/learned_attention.json)."""
    return results(project)


def seed_curves(ax: Axes, x: Sequence[float], curves: Sequence[Sequence[float] | None], color: str, label: str | None = None,
                **median_style: Any) -> None:
    """Every seed's curve as a thin line and their median as a thick one (a diverged seed, None, is left out)."""
    kept = np.array([c for c in curves if c is not None], dtype=float)  # (seeds, points)
    for curve in kept:
        ax.plot(x, curve, color=color, **SEED_LINE)
    ax.plot(x, np.median(kept, axis=0), color=color, label=label, **{**MEDIAN_LINE, **median_style})


def it_bars(ax: Axes, rows: np.ndarray, tokens: Sequence[str], theme: Theme, layer_labels: Sequence[str]) -> None:
    """One group of bars per token (sentence order, top to bottom): "it"'s weight in each row of `rows` ((k, n))."""
    n_layers, n = rows.shape
    height = 0.8 / n_layers
    positions = np.arange(n)
    for layer in range(n_layers):
        offset = (layer - (n_layers - 1) / 2) * height
        ax.barh(positions + offset, rows[layer], height=height, color=LAYER_COLORS[layer], label=layer_labels[layer])
        for y, weight in zip(positions, rows[layer], strict=True):
            if weight >= 0.45:  # the weights that decide the row; the rest are read off the bars
                ax.text(weight + 0.03, y + offset, f"{weight:.2f}", va="center", ha="left", fontsize=SMALL_SIZE,
                        color=theme.text)  # beside the bar, on the page: readable in both schemes
    ax.set_yticks(positions, list(tokens))
    ax.set_ylim(n - 0.4, -0.6)
    for label, token in zip(ax.get_yticklabels(), tokens, strict=True):
        if token == "it":
            label.set_color(theme.ink(COLORS["q"]))
    ax.set_xlim(0, 1.45)  # room for the weight written beside a full bar
    ax.set_xticks([0, 0.5, 1], ["0", "0.5", "1"])
    ax.tick_params(axis="y", length=0)
    ax.grid(True, axis="x")
    ax.set_axisbelow(True)
