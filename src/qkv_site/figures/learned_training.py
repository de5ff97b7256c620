"""Figure: the baseline's training loss and held-out accuracy over the steps, every seed and their median (committed runs)."""

from __future__ import annotations

from matplotlib.figure import Figure

from qkv_site.figures.labels import text
from qkv_site.figures.learned_common import LAYER_COLORS, runs, seed_curves
from qkv_site.figures.style import COLORS, TITLE_SIZE, Theme, new_figure
from qkv_site.project import Project

WINDOW = 10  # steps per point of the committed loss curves (qkv.learning.runs.WINDOW)


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """Top: the batch loss averaged over windows (log scale); bottom: held-out accuracy; thin lines seeds, thick the median."""
    records = runs(project).records("baseline")
    t = text("learned_training", lang)
    fig = new_figure(height=5.6)
    top, bottom = fig.subplots(2, 1, sharex=True)
    losses = [r["loss"] for r in records]
    window_mid = [WINDOW * k + WINDOW / 2 for k in range(len(losses[0]))]
    seed_curves(top, window_mid, losses, COLORS["q"], label=t["median"])
    top.set_yscale("log")
    top.set_ylabel(t["loss"])
    seed_curves(bottom, records[0]["eval_steps"], [r["accuracy"] for r in records], LAYER_COLORS[1])
    bottom.axhline(0.5, color=theme.muted, linestyle=":", linewidth=1.2)
    bottom.annotate(t["chance"], xy=(records[0]["eval_steps"][-1], 0.5), xytext=(0, -3), textcoords="offset points",
                    ha="right", va="top", color=theme.muted)
    bottom.set_ylim(0.3, 1.08)
    bottom.set_yticks([0.5, 0.75, 1.0], ["50%", "75%", "100%"])
    bottom.set_ylabel(t["accuracy"])
    bottom.set_xlabel(t["x"])
    for ax in (top, bottom):
        ax.grid(True, axis="y")
    fig.suptitle(t["title"].format(seeds=len(records)), fontsize=TITLE_SIZE)
    return fig
