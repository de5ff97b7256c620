"""Figure: the trained model's loss and held-out accuracy over its training steps."""

from __future__ import annotations

from matplotlib.figure import Figure

from qkv_site.figures.labels import text
from qkv_site.figures.learned_common import LAYER_COLORS, model
from qkv_site.figures.style import COLORS, TITLE_SIZE, Theme, new_figure
from qkv_site.project import Project


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """Top: the batch loss at every step and the held-out loss (log scale); bottom: held-out accuracy."""
    h = model("baseline").history
    t = text("learned_training", lang)
    fig = new_figure(height=5.6)
    top, bottom = fig.subplots(2, 1, sharex=True)
    top.plot(range(len(h.loss)), h.loss, color=COLORS["q"], linewidth=1.4, label=t["batch_loss"])
    top.plot(h.eval_steps, h.heldout_loss, color=COLORS["k"], marker="o", markersize=4, linestyle="--",
             label=t["heldout_loss"])
    top.set_yscale("log")
    top.set_ylabel(t["loss"])
    bottom.plot(h.eval_steps, h.heldout_accuracy, color=LAYER_COLORS[1], marker="D", markersize=5)
    bottom.axhline(0.5, color=theme.muted, linestyle=":", linewidth=1.2)
    bottom.annotate(t["chance"], xy=(h.eval_steps[-1], 0.5), xytext=(0, -3), textcoords="offset points",
                    ha="right", va="top", color=theme.muted)
    bottom.set_ylim(0.3, 1.08)
    bottom.set_yticks([0.5, 0.75, 1.0], ["50%", "75%", "100%"])
    bottom.set_ylabel(t["accuracy"])
    bottom.set_xlabel(t["x"])
    for ax in (top, bottom):
        ax.grid(True, axis="y")
    handles, labels = top.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=1)
    fig.suptitle(t["title"], fontsize=TITLE_SIZE)
    return fig
