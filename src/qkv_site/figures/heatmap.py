"""An attention-weight heatmap: one cell per (query, key), its weight written in it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from qkv_site.figures.style import COLORS, Theme


def draw_weights(
    ax: Axes,
    weights: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    theme: Theme,
    *,
    row_title: str | None = None,
    col_title: str | None = None,
    font_size: float | None = None,
) -> None:
    """Draw `weights` (queries down, keys across, values in [0, 1]) on `ax`, keys on top as in the article.

    Axis titles are written in the Q and K colours (`Theme.ink`): rows are queries, columns are keys.
    """
    n_rows, n_cols = weights.shape
    cmap = theme.heatmap
    # Cells separated by a gap of page background; row 0 at the top.
    ax.pcolormesh(weights, cmap=cmap, vmin=0.0, vmax=1.0, edgecolors=theme.background, linewidth=3)
    ax.set_xlim(0, n_cols)
    ax.set_ylim(n_rows, 0)
    ax.set_aspect("equal")
    for i in range(n_rows):
        for j in range(n_cols):
            weight = float(weights[i, j])
            ax.text(j + 0.5, i + 0.5, f"{weight:.2f}", ha="center", va="center",
                    color=theme.on(cmap(weight)), fontsize=font_size)
    ax.set_xticks(np.arange(n_cols) + 0.5, cols)
    ax.set_yticks(np.arange(n_rows) + 0.5, rows)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    if row_title:
        ax.set_ylabel(row_title, color=theme.ink(COLORS["q"]))
    if col_title:
        ax.set_xlabel(col_title, color=theme.ink(COLORS["k"]))


def outline_cell(ax: Axes, row: int, col: int, theme: Theme) -> None:
    """Frame one cell, to point at it from a note."""
    ax.add_patch(Rectangle((col + 0.04, row + 0.04), 0.92, 0.92, fill=False, edgecolor=theme.text, linewidth=2.2))
