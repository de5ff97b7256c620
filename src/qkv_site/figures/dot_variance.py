"""Figure: Var[q·k] grows like d_k, and dividing by √d_k brings it back to 1."""

from __future__ import annotations

from functools import cache

from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullLocator

from qkv.analysis import DotProductVariance, dot_product_variance
from qkv_site.figures.labels import text
from qkv_site.figures.style import SCALING_COLORS, SCALING_STYLES, SMALL_SIZE, Theme, new_figure
from qkv_site.project import Project

D_KS = tuple(2**i for i in range(11))  # 1 … 1024


@cache
def _measurement() -> DotProductVariance:
    return dot_product_variance(D_KS)


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """Monte-Carlo variance of q·k and of q·k/√d_k against d_k, on log-log axes with the lines d_k and 1."""
    result = _measurement()
    t = text("dot_variance", lang)
    fig = new_figure(height=4.6)
    ax = fig.add_subplot()
    d_k = result.d_k
    ax.plot(d_k, d_k, color=theme.muted, linestyle="--", linewidth=1.5, label=t["theory"])
    ax.axhline(1.0, color=theme.muted, linestyle=":", linewidth=1.5)
    marker, _ = SCALING_STYLES["none"]
    ax.plot(d_k, result.variance, marker, color=SCALING_COLORS["none"], markersize=8, label=t["measured"])
    marker, _ = SCALING_STYLES["sqrt_d_k"]
    ax.plot(d_k, result.scaled_variance, marker, color=SCALING_COLORS["sqrt_d_k"], markersize=7, label=t["scaled"])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ticks = [2**i for i in range(0, 11, 2)]  # 1, 4, 16, … 1024
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(FixedLocator(ticks))
        axis.set_major_formatter(lambda value, _: f"{value:g}")
        axis.set_minor_locator(NullLocator())
    ax.set_ylim(0.5, 2048)
    ax.grid(True)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"])
    ax.legend(loc="upper left")
    fig.supxlabel(t["note"].format(n=f"{result.n_samples:,}"), color=theme.muted, fontsize=SMALL_SIZE)
    return fig
