"""Figure: where "it" looks in the committed first-task model (the shown seed), in the article's sentence and its "wide" twin."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from qkv_site.figures.labels import text
from qkv_site.figures.learned_common import it_bars, runs
from qkv_site.figures.style import SMALL_SIZE, TITLE_SIZE, Theme, new_figure
from qkv_site.project import Project


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """Two panels side by side (…too tired | …too wide): "it"'s row in layer 1 and in layer 2 (committed weights)."""
    probes = runs(project).shown("baseline")["probes"]
    t = text("learned_it", lang)
    fig = new_figure(height=5.6)
    panels = fig.subplots(1, 2)
    for ax, key in zip(panels, ("tired", "wide"), strict=True):
        rows = np.array(probes[key]["raw"])  # (layers, n)
        it_bars(ax, rows, probes[key]["tokens"], theme, [t["layer"].format(layer=k + 1) for k in range(len(rows))])
        ax.set_title(t[key], fontsize=SMALL_SIZE)
        ax.set_xlabel(t["x"])
    handles, labels = panels[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels))
    fig.suptitle(t["title"], fontsize=TITLE_SIZE)
    return fig
