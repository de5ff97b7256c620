"""Figure: the same training with the scores scaled by 1, 1/√d_k and 1/d_k at a large d_k."""

from __future__ import annotations

from matplotlib.figure import Figure

from qkv.learning.experiments import LARGE_D_K
from qkv_site.figures.labels import text
from qkv_site.figures.learned_common import model
from qkv_site.figures.style import SCALING_COLORS, SCALING_STYLES, TITLE_SIZE, Theme, new_figure
from qkv_site.project import Project

RUNS = {"none": "scale 1", "sqrt_d_k": "scale 1/√d_k", "d_k": "scale 1/d_k"}  # SCALING_COLORS key → experiment


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """Three panels over the steps: batch loss (log), mean attention entropy, the norm of the softmax's Jacobian."""
    t = text("learned_scaling", lang)
    fig = new_figure(height=7.6)
    loss, entropy, gradient = fig.subplots(3, 1, sharex=True)
    for key, name in RUNS.items():
        h = model(name).history
        marker, linestyle = SCALING_STYLES[key]
        style = dict(color=SCALING_COLORS[key], linestyle=linestyle, linewidth=1.4, marker=marker, markersize=4,
                     markevery=30)
        steps = range(len(h.loss))
        loss.plot(steps, h.loss, label=t[key], **style)
        entropy.plot(steps, h.entropy.mean(axis=1), **style)
        gradient.plot(steps, h.jacobian_norm.mean(axis=1), **style)
    loss.set_yscale("log")
    loss.set_ylabel(t["loss"])
    entropy.set_ylabel(t["entropy"])
    entropy.set_ylim(0, None)
    gradient.set_ylim(0, None)
    gradient.set_ylabel(t["gradient"])
    gradient.set_xlabel(t["x"])
    for ax in (loss, entropy, gradient):
        ax.grid(True, axis="y")
    handles, labels = loss.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=1)
    fig.suptitle(t["title"].format(d_k=LARGE_D_K), fontsize=TITLE_SIZE)
    return fig
