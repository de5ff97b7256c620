"""Figure: "it"'s row in each layer of the shown seed's first-task model, on the article's sentence, during training."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from qkv.learning import sentences as s
from qkv_site.figures.labels import text
from qkv_site.figures.learned_common import runs
from qkv_site.figures.style import COLORS, TITLE_SIZE, Theme, new_figure
from qkv_site.project import Project


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """One heatmap per layer: a row per snapshot step, a column per word (the key); colour is "it"'s weight."""
    snaps = runs(project).shown("baseline")["snapshots"]
    t = text("learned_snapshots", lang)
    tokens = s.tokens(s.ARTICLE_SENTENCE)
    tired = np.array(snaps["tired"])  # (snapshots, layers, n): "it"'s row
    n_layers = tired.shape[1]
    fig = new_figure(height=6.4)
    panels = list(fig.subplots(n_layers, 1, squeeze=False)[:, 0])
    steps = [t["step"].format(step=int(step)) for step in snaps["steps"]]
    for layer, ax in enumerate(panels):
        rows = tired[:, layer]  # (snapshots, n)
        mesh = ax.pcolormesh(rows, cmap=theme.heatmap, vmin=0.0, vmax=1.0, edgecolors=theme.background, linewidth=2)
        ax.set_xlim(0, len(tokens))
        ax.set_ylim(len(steps), 0)
        ax.set_xticks(np.arange(len(tokens)) + 0.5, tokens, rotation=90)
        ax.set_yticks(np.arange(len(steps)) + 0.5, steps)
        for label, token in zip(ax.get_xticklabels(), tokens, strict=True):
            if token == "it":
                label.set_color(theme.ink(COLORS["q"]))
        ax.xaxis.tick_top()
        ax.tick_params(length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_title(t["layer"].format(layer=layer + 1), loc="left")
    bar = fig.colorbar(mesh, ax=panels, location="bottom", shrink=0.8, aspect=30)
    bar.set_label(t["weight"])
    bar.outline.set_visible(False)
    fig.suptitle(t["title"], fontsize=TITLE_SIZE)
    return fig
