"""Figure: measured peak memory of ordinary vs tiled attention against n (benchmarks/results/attention_memory.json)."""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullLocator

from qkv.complexity import format_bytes
from qkv_site.figures.labels import text
from qkv_site.figures.style import SCALING_COLORS, SMALL_SIZE, Theme, new_figure
from qkv_site.project import Project
from qkv_site.results import load

NAIVE_COLOR = SCALING_COLORS["none"]  # the pink of "the cost that hurts", as in memory.py
TILED_COLOR = SCALING_COLORS["sqrt_d_k"]  # the purple of the fix


def _length_label(n: float) -> str:
    return f"{int(n) // 1024}K" if n >= 1024 else f"{int(n)}"


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """Log-log lines of the traced peak of each implementation, with one n×n float32 matrix for scale."""
    t = text("tiled_memory", lang)
    results = load(project, "attention_memory")
    rows = sorted(results["results"], key=lambda row: row["n"])
    ns = [row["n"] for row in rows]
    naive = [row["naive_peak_bytes"] for row in rows]
    tiled = [row["tiled_peak_bytes"] for row in rows]
    matrix = [row["n_by_n_float32_bytes"] for row in rows]

    fig = new_figure(height=4.6)
    ax = fig.add_subplot()
    ax.plot(ns, matrix, color=theme.muted, linestyle=":", linewidth=1.5, label=t["matrix"])
    ax.plot(ns, naive, color=NAIVE_COLOR, marker="o", label=t["naive"])
    ax.plot(ns, tiled, color=TILED_COLOR, marker="D", markersize=5, label=t["tiled"].format(block=results["block_size"]))
    # The gap at the largest n: an arrow from the tiled peak up to the ordinary one, and the numbers
    # under its foot, in three short lines in the empty corner below the tiled line (nothing crosses
    # them: tests/build/test_figure_legibility.py checks that no text or legend touches a line).
    last = rows[-1]
    ax.annotate("", xy=(last["n"], last["naive_peak_bytes"]), xytext=(last["n"], last["tiled_peak_bytes"]),
                arrowprops=dict(arrowstyle="<->", color=theme.muted, linewidth=1.2, shrinkA=6, shrinkB=6))
    low, high = min(tiled + matrix), max(naive)
    bottom, top = low / 3, high * 5  # room under the lines for the numbers, above them for the legend
    ax.annotate(
        t["ratio"].format(n=f"{last['n']:,}", naive=format_bytes(last["naive_peak_bytes"]),
                          tiled=format_bytes(last["tiled_peak_bytes"]), ratio=f"{last['ratio']:.2%}"),
        xy=(last["n"], bottom), xytext=(0, 4), textcoords="offset points",
        ha="right", va="bottom", color=theme.text, fontsize=SMALL_SIZE,
    )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(ns))
    ax.xaxis.set_major_formatter(lambda n, _: _length_label(n))
    ax.set_ylim(bottom, top)
    ax.yaxis.set_major_locator(FixedLocator([2.0**k for k in range(10, 41, 4) if low / 4 <= 2.0**k <= high * 4]))
    ax.yaxis.set_major_formatter(lambda b, _: format_bytes(int(b)))
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_minor_locator(NullLocator())
    ax.grid(True)
    ax.legend(loc="upper left")
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"].format(d=results["d"]))
    return fig
