"""Figure: where "it" looks in the trained model, in the article's sentence and in its "wide" twin."""

from __future__ import annotations

from matplotlib.figure import Figure

from qkv.learning import sentences as s
from qkv_site.figures.labels import text
from qkv_site.figures.learned_common import it_bars, model
from qkv_site.figures.style import SMALL_SIZE, TITLE_SIZE, Theme, new_figure
from qkv_site.project import Project


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """Two panels side by side (…too tired | …too wide): "it"'s row in layer 1 and in layer 2."""
    trained = model("baseline")
    t = text("learned_it", lang)
    fig = new_figure(height=5.6)
    panels = fig.subplots(1, 2)
    layers = [t["layer"].format(layer=layer + 1) for layer in range(trained.options.n_layers)]
    for ax, sentence, key in zip(panels, (s.ARTICLE_SENTENCE, s.ARTICLE_TWIN), ("tired", "wide"), strict=True):
        tokens = trained.tokens(sentence)
        rows = trained.attention(sentence)[:, tokens.index("it")]  # (layers, n)
        it_bars(ax, rows, tokens, theme, layers)
        ax.set_title(t[key], fontsize=SMALL_SIZE)
        ax.set_xlabel(t["x"])
    handles, labels = panels[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels))
    fig.suptitle(t["title"], fontsize=TITLE_SIZE)
    return fig
