"""Figure: memory of one n×n attention matrix in FP16 against the sequence length n."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullLocator

from qkv.complexity import attention_matrix_bytes, format_bytes
from qkv_site.figures.labels import text
from qkv_site.figures.style import SCALING_COLORS, SMALL_SIZE, Theme, new_figure
from qkv_site.project import Project

LENGTHS = 2 ** np.arange(7, 19)  # n = 128 … 256K
ARTICLE_ROWS = (512, 4096, 32768, 128000)  # the rows of the article's table
LINE_COLOR = SCALING_COLORS["none"]  # the "unscaled, too big" pink: this is the cost that hurts


def _length_label(n: float) -> str:
    # 2¹⁰ = 1K, as context lengths are usually written (4K, 128K).
    return f"{int(n) // 1024}K" if n >= 1024 else f"{int(n)}"


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """Log-log line of bytes(n) = 2n², with the article's four lengths marked and labelled in binary units."""
    t = text("memory", lang)
    nbytes = [attention_matrix_bytes(int(n)) for n in LENGTHS]
    fig = new_figure(height=4.6)
    ax = fig.add_subplot()
    ax.plot(LENGTHS, nbytes, color=LINE_COLOR)
    for n in ARTICLE_ROWS:
        size = attention_matrix_bytes(n)
        ax.plot([n], [size], "o", color=LINE_COLOR, markersize=8, markeredgecolor=theme.background, markeredgewidth=1.5)
        label = t["point"].format(n=f"{n:,}", size=format_bytes(size))
        # Below and right of the rising line, where it is empty; the last one above left, inside the axes.
        last = n == ARTICLE_ROWS[-1]
        ax.annotate(label, xy=(n, size), xytext=(-10, 4) if last else (10, -6), textcoords="offset points",
                    ha="right" if last else "left", va="bottom" if last else "top")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator([float(n) for n in LENGTHS[::2]]))
    ax.xaxis.set_major_formatter(lambda n, _: _length_label(n))
    ax.yaxis.set_major_locator(FixedLocator([2.0**k for k in range(15, 40, 5)]))  # 32 KiB, 1 MiB, …
    ax.yaxis.set_major_formatter(lambda b, _: format_bytes(int(b)))
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_minor_locator(NullLocator())
    ax.grid(True)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"])
    ax.text(0.98, 0.04, t["note"], transform=ax.transAxes, ha="right", va="bottom",
            color=theme.muted, fontsize=SMALL_SIZE)
    return fig
