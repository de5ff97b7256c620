"""Figure: the scaling experiment (scores times 1, 1/√d_k, 1/d_k at d_k = 64) with Adam and with plain SGD, every seed."""

from __future__ import annotations

from matplotlib.figure import Figure

from qkv_site.figures.labels import text
from qkv_site.figures.learned_common import runs, seed_curves
from qkv_site.figures.learned_training import WINDOW
from qkv_site.figures.style import SCALING_COLORS, SCALING_STYLES, TITLE_SIZE, Theme, new_figure
from qkv_site.project import Project

RUNS = {"none": "scale 1", "sqrt_d_k": "scale 1/√d_k", "d_k": "scale 1/d_k"}  # SCALING_COLORS key → run


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """Three panels over the steps: held-out accuracy with Adam, with SGD, and the mean attention entropy with Adam."""
    results = runs(project)
    t = text("learned_scaling", lang)
    fig = new_figure(height=8.4)
    adam, sgd, entropy = fig.subplots(3, 1, sharex=True)
    for key, name in RUNS.items():
        _, linestyle = SCALING_STYLES[key]
        color = SCALING_COLORS[key]
        for ax, run in ((adam, name), (sgd, f"SGD {name}")):
            records = [r for r in results.records(run) if "accuracy" in r]  # an overflowed seed has no curve
            seed_curves(ax, records[0]["eval_steps"], [r["accuracy"] for r in records], color,
                        label=t[key] if ax is adam else None, linestyle=linestyle)
        records = results.records(name)
        mid = [WINDOW * k + WINDOW / 2 for k in range(len(records[0]["entropy"]))]
        seed_curves(entropy, mid, [r["entropy"] for r in records], color, linestyle=linestyle)
    for ax, label in ((adam, t["adam"]), (sgd, t["sgd"])):
        ax.set_ylim(0.3, 1.08)
        ax.set_yticks([0.5, 0.75, 1.0], ["50%", "75%", "100%"])
        ax.set_ylabel(label)
    entropy.set_ylabel(t["entropy"])
    entropy.set_ylim(0, None)
    entropy.set_xlabel(t["x"])
    for ax in (adam, sgd, entropy):
        ax.grid(True, axis="y")
    handles, labels = adam.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=1)
    fig.suptitle(t["title"].format(d_k=results.options("scale 1")["d_k"]), fontsize=TITLE_SIZE)
    return fig
