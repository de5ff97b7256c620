"""Figure: the attention matrix of 「猫 坐在 垫子 上」 next to its transpose — A is not symmetric."""

from __future__ import annotations

from matplotlib.figure import Figure

from qkv.examples import cat_sat_on_mat
from qkv_site.figures.heatmap import draw_weights, outline_cell
from qkv_site.figures.labels import text
from qkv_site.figures.style import SMALL_SIZE, Theme, new_figure
from qkv_site.project import Project


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """A and Aᵀ side by side, the cell (坐在, 猫) framed in both: 0.84 one way, 0.14 the other."""
    example = cat_sat_on_mat()
    t = text("asymmetry", lang)
    names = [t["gloss"].format(token=token, gloss=gloss) for token, gloss in zip(example.tokens, example.glosses, strict=True)]
    columns = list(example.tokens)  # the rows carry the English glosses; the columns stay narrow
    a = example.weights
    verb, noun = example.tokens.index("坐在"), example.tokens.index("猫")

    fig = new_figure(height=3.7 if lang == "zh" else 4.0)
    left, right = fig.subplots(1, 2, sharey=True)
    draw_weights(left, a, names, columns, theme, row_title=t["query"], col_title=t["key"])
    draw_weights(right, a.T, names, columns, theme)  # rows and columns swap roles: no Query/Key titles
    right.tick_params(labelleft=False)
    for ax, title in ((left, t["title_a"]), (right, t["title_at"])):
        outline_cell(ax, verb, noun, theme)
        ax.set_title(title, pad=10)
    fig.align_titles()
    display = dict(zip(example.tokens, example.glosses, strict=True)) if lang == "en" else {}
    fig.supxlabel(
        t["note"].format(
            verb=display.get("坐在", "坐在"),
            noun=display.get("猫", "猫"),
            forward=f"{a[verb, noun]:.2f}",
            backward=f"{a[noun, verb]:.2f}",
        ),
        fontsize=SMALL_SIZE,
    )
    return fig
