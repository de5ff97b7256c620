"""Figure: the worked example's attention weights, "I love" attending to "I love"."""

from __future__ import annotations

from matplotlib.figure import Figure

from qkv.examples import worked_example
from qkv_site.figures.heatmap import draw_weights
from qkv_site.figures.labels import text
from qkv_site.figures.style import SMALL_SIZE, Theme, new_figure
from qkv_site.project import Project


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """The 2×2 softmax weights of the article's fourth step, numbers in the cells."""
    example = worked_example()
    t = text("worked_weights", lang)
    fig = new_figure(height=3.9, width=4.6)
    ax = fig.add_subplot()
    draw_weights(ax, example.weights, example.tokens, example.tokens, theme,
                 row_title=t["query"], col_title=t["key"], font_size=16)
    ax.set_title(t["title"], pad=12)
    fig.supxlabel(t["note"], color=theme.muted, fontsize=SMALL_SIZE)
    return fig
