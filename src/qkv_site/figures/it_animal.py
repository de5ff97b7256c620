"""Figure: where "it" looks in "The animal didn't cross the street because it was too tired"."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from qkv.examples import it_animal_sentence
from qkv_site.figures.labels import text
from qkv_site.figures.style import COLORS, SCALING_COLORS, SMALL_SIZE, TITLE_SIZE, Theme, new_figure
from qkv_site.project import Project

HIGHLIGHT = SCALING_COLORS["sqrt_d_k"]  # the heatmaps' purple: an attention weight


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """One bar per token of the sentence (in order, top to bottom): the attention row of the query "it"."""
    example = it_animal_sentence()
    t = text("it_animal", lang)
    row = example.weights_of("it")
    tokens, weights = list(row), np.array(list(row.values()))
    top = int(np.argmax(weights))

    fig = new_figure(height=5.0)
    ax = fig.add_subplot()
    positions = np.arange(len(tokens))
    colors = [HIGHLIGHT if i == top else theme.muted for i in positions]
    ax.barh(positions, weights, color=colors, height=0.7)
    for y, weight in zip(positions, weights, strict=True):
        ax.text(weight + 0.012, float(y), f"{weight:.2f}", va="center", ha="left", fontsize=SMALL_SIZE,
                color=theme.text if y == top else theme.muted)
    ax.set_yticks(positions, tokens)
    ax.set_ylim(len(tokens) - 0.4, -0.6)  # sentence order, top to bottom
    for label, token in zip(ax.get_yticklabels(), tokens, strict=True):
        if token == "it":  # the query itself
            label.set_color(theme.ink(COLORS["q"]))
    ax.set_xlim(0, 1)
    ax.tick_params(axis="y", length=0)
    ax.grid(True, axis="x")
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"], color=theme.ink(COLORS["k"]))
    ax.set_axisbelow(True)
    fig.suptitle(t["title"], fontsize=TITLE_SIZE)
    ax.set_title(t["subtitle"], color=theme.muted, fontsize=SMALL_SIZE)
    return fig
