"""Figure: the second task's committed model (the shown seed): "it"'s raw rows in each layer and its rollout, on two sentences."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from qkv_site.figures.labels import text
from qkv_site.figures.learned_common import it_bars, runs
from qkv_site.figures.style import SMALL_SIZE, TITLE_SIZE, Theme, new_figure
from qkv_site.project import Project


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """Two panels (…too tired | …too wide): layer 1, layer 2 and the rollout of "it" (committed weights)."""
    probes = runs(project).shown("referent")["probes"]
    t = text("learned_referent", lang)
    fig = new_figure(height=7.0)
    panels = fig.subplots(1, 2)
    for ax, key in zip(panels, ("tired", "wide"), strict=True):
        rows = np.vstack([np.array(probes[key]["raw"]), np.array(probes[key]["rollout"])[None]])  # (layers + 1, n)
        labels = [t["layer"].format(layer=k + 1) for k in range(len(rows) - 1)] + [t["rollout"]]
        it_bars(ax, rows, probes[key]["tokens"], theme, labels)
        ax.set_title(t[key], fontsize=SMALL_SIZE)
        ax.set_xlabel(t["x"])
    handles, labels = panels[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels))
    fig.suptitle(t["title"], fontsize=TITLE_SIZE)
    return fig
