"""Figure: measured time of one attention call against n, log-log, with an n² slope (benchmarks/results/attention_speed.json)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullLocator

from qkv_site.figures.labels import text
from qkv_site.figures.style import SCALING_COLORS, SMALL_SIZE, Theme, new_figure
from qkv_site.project import Project
from qkv_site.results import load, repeats, series

# Implementations, not Q/K/V: the role colours stay free. Markers and line styles tell them apart
# without colour; qkv's two share its purple.
STYLES: dict[str, dict[str, Any]] = {
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


def _inside_sentence(label: str, lang: str) -> str:
    """A legend label in the middle of an English phrase: "Pure-Python loop" → "pure-Python loop"."""
    return label[:1].lower() + label[1:] if lang == "en" and label[1:2].islower() else label


def note(results: dict[str, Any], lang: str) -> str:
    """What each median is of: the repeats every implementation had (the pure-Python loop may have fewer)."""
    t = text("attention_time", lang)
    counts = {name: count for name, count in repeats(results).items() if name in STYLES}
    most = max(counts.values())
    fewer = [t["fewer"].format(name=_inside_sentence(t[name], lang), repeats=count)
             for name, count in counts.items() if count < most]
    threads = results["torch"]["threads"]
    if not fewer:
        return t["note"].format(repeats=most, threads=threads)
    return t["note_fewer"].format(repeats=most, fewer="，".join(fewer) if lang == "zh" else ", ".join(fewer), threads=threads)


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """One line per implementation (median of the repeats) and a dotted n² line through qkv's largest n."""
    t = text("attention_time", lang)
    results = load(project, "attention_speed")
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
    # Labelled near its small-n end, where the line lies far below every measured curve.
    early = min(1, len(ns) - 1)
    ax.annotate(t["slope"], xy=(ns[early], reference[early]), xytext=(8, -4), textcoords="offset points",
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
    legend = fig.legend(loc="outside lower center", ncols=2, title=note(results, lang), title_fontsize=SMALL_SIZE)
    legend.get_title().set_color(theme.muted)
    ax.set_xlabel(t["x"])
    ax.set_ylabel(t["y"])
    ax.set_title(t["title"].format(d=results["d"]))
    return fig
