"""What the trained-model figures share: the runs (trained once per process) and a bar panel of "it"'s rows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes

from qkv.learning import CoreferenceModel, train_coreference
from qkv.learning.experiments import EXPERIMENTS
from qkv_site.figures.style import COLORS, SCALING_COLORS, SMALL_SIZE, Theme

LAYER_COLORS = (COLORS["q"], SCALING_COLORS["sqrt_d_k"])  # layer 1, layer 2


def model(name: str) -> CoreferenceModel:
    """The run `name` of `qkv.learning.EXPERIMENTS` with seed 0 (the page's runs; cached by qkv.learning)."""
    return train_coreference(0, **EXPERIMENTS[name])


def it_bars(ax: Axes, rows: np.ndarray, tokens: Sequence[str], theme: Theme, layer_labels: Sequence[str]) -> None:
    """One group of bars per token (sentence order, top to bottom): "it"'s weight in each layer (`rows`: (layers, n))."""
    n_layers, n = rows.shape
    height = 0.8 / n_layers
    positions = np.arange(n)
    for layer in range(n_layers):
        offset = (layer - (n_layers - 1) / 2) * height
        ax.barh(positions + offset, rows[layer], height=height, color=LAYER_COLORS[layer], label=layer_labels[layer])
        for y, weight in zip(positions, rows[layer], strict=True):
            if weight >= 0.5:  # the weights that decide the row; the rest are read off the bars
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
