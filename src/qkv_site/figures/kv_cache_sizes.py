"""Figure: KV-cache size of published model shapes (MHA, GQA) and a hypothetical MQA variant, from qkv.kv_cache."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator

from qkv.complexity import format_bytes
from qkv.kv_cache import MODEL_SHAPES
from qkv_site.figures.labels import text
from qkv_site.figures.style import COLORS, SMALL_SIZE, Theme, new_figure
from qkv_site.project import Project

SEQ_LEN = 4096  # one common length for every model: Llama 2's context
GIB = 2**30


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """Horizontal bars, one per model shape; each bar is half K (K's colour), half V (V's colour)."""
    t = text("kv_cache_sizes", lang)
    shapes = list(reversed(MODEL_SHAPES))  # the first model at the top
    sizes = [shape.cache_bytes(SEQ_LEN) for shape in shapes]
    fig = new_figure(height=3.9)
    ax = fig.add_subplot()
    rows = range(len(shapes))
    for row, shape, size in zip(rows, shapes, sizes, strict=True):
        hatch = "//" if shape.hypothetical else None
        style: dict[str, Any] = dict(height=0.62, edgecolor=theme.background, linewidth=0.8, hatch=hatch)
        ax.barh(row, size / 2 / GIB, color=COLORS["k"], label=t["k"] if row == 0 else None, **style)
        ax.barh(row, size / 2 / GIB, left=size / 2 / GIB, color=COLORS["v"], label=t["v"] if row == 0 else None, **style)
        ax.annotate(format_bytes(size), xy=(size / GIB, row), xytext=(6, 0), textcoords="offset points",
                    ha="left", va="center", color=theme.text, fontsize=SMALL_SIZE)
    labels = []
    for shape in shapes:
        kind = t["kind_one" if shape.kv_heads == 1 else "kind"].format(kind=shape.kind, kv_heads=shape.kv_heads)
        name = t["hypothetical"].format(name=shape.name.split(",")[0]) if shape.hypothetical else shape.name
        labels.append(f"{name}\n{kind}")
    ax.yaxis.set_major_locator(FixedLocator(list(rows)))
    ax.set_yticklabels(labels)
    ax.tick_params(axis="y", length=0)
    ax.set_xlim(0, max(sizes) / GIB * 1.22)  # room for the value labels
    ax.xaxis.set_major_formatter(lambda gib, _: f"{gib:g} GiB")
    ax.grid(True, axis="x")
    ax.set_axisbelow(True)
    ax.set_xlabel(t["x"].format(n=f"{SEQ_LEN:,}"))
    ax.set_title(t["title"])
    ax.legend(loc="center right")  # beside the short bars, clear of every value label
    return fig
