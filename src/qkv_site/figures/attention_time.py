"""Figure: measured time of one attention call against n, log-log, with an n² slope (benchmarks/results/attention_speed.json)."""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullLocator

from qkv_site.figures.labels import text
from qkv_site.figures.results import load, series
from qkv_site.figures.style import SCALING_COLORS, SMALL_SIZE, Theme, new_figure

# Implementations, not Q/K/V: the role colours stay free. Markers and line styles tell them apart
# without colour; qkv's two share its purple.
STYLES = {
    "qkv": dict(color=SCALING_COLORS["sqrt_d_k"], marker="o", linestyle="-"),
    "tiled": dict(color=SCALING_COLORS["sqrt_d_k"], marker="D", linestyle="--", markersize=5),
    "torch": dict(color=SCALING_COLORS["d_k"], marker="s", linestyle="-"),
    "python": dict(color=SCALING_COLORS["none"], marker="^", linestyle="-"),
}


def _length_label(n: float) -> str:
    return f"{int(n) // 1024}K" if n >= 1024 else f"{int(n)}"


def _time_label(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:g} ms"
    return f"{seconds * 1e6:g} µs"


def draw(theme: Theme, lang: str) -> Figure:
    """One line per implementation (median of the repeats) and a dotted n² line through qkv's largest n."""
    t = text("attention_time", lang)
    results = load("attention_speed")
    fig = new_figure(height=4.8)
    ax = fig.add_subplot()
    every_time = []
    for name, style in STYLES.items():
        ns, seconds = series(results, name)
        if ns:
            ax.plot(ns, seconds, label=t[name], **style)
            every_time += seconds

    # The n² slope: anchored on qkv at the largest n, drawn back to the smallest n.
    ns, seconds = series(results, "qkv")
    reference = [seconds[-1] * (n / ns[-1]) ** 2 for n in ns]
    ax.plot(ns, reference, color=theme.muted, linestyle=":", linewidth=1.5)
    middle = len(ns) // 2
    ax.annotate(t["slope"], xy=(ns[middle], reference[middle]), xytext=(8, -4), textcoords="offset points",
                ha="left", va="top", color=theme.muted, fontsize=SMALL_SIZE)

    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    ax.xaxis.set_major_locator(FixedLocator(ns))
    ax.xaxis.set_major_formatter(lambda n, _: _length_label(n))
    low, high = min(every_time + reference), max(every_time)
    ax.yaxis.set_major_locator(FixedLocator([10.0**k for k in range(-7, 3) if low / 10 <= 10.0**k <= high * 10]))
    ax.yaxis.set_major_formatter(lambda s, _: _time_label(s))
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_minor_locator(NullLocator())
    ax.grid(True)
    # Below the plot, two columns: inside, the four lines leave no corner free at this size.
    legend = fig.legend(loc="outside lower center", ncols=2, title=t["note"].format(repeats=results["repeats"], threads=results["torch"]["threads"]),
                        title_fontsize=SMALL_SIZE)
    legend.get_title().set_color(theme.muted)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"].format(d=results["d"]))
    return fig
