"""Figure: what each scaling of the scores does to softmax as d_k grows (the deep dive's three-row table)."""

from __future__ import annotations

from functools import cache

from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullLocator

from qkv.analysis import SCALINGS, ScalingStudy, scaling_study
from qkv_site.figures.labels import text
from qkv_site.figures.style import SCALING_COLORS, SCALING_STYLES, SMALL_SIZE, TITLE_SIZE, Theme, new_figure
from qkv_site.project import Project

D_KS = tuple(2**i for i in range(11))  # 1 … 1024


@cache
def _study() -> ScalingStudy:
    return scaling_study(D_KS)


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """Two panels over log₂ d_k: the largest softmax weight (focus) and the Jacobian's norm (gradient)."""
    study = _study()
    t = text("softmax_saturation", lang)
    fig = new_figure(height=6.0)
    top, bottom = fig.subplots(2, 1, sharex=True)
    for strategy in SCALINGS:
        marker, linestyle = SCALING_STYLES[strategy]
        style = dict(color=SCALING_COLORS[strategy], marker=marker, linestyle=linestyle, markersize=5)
        top.plot(study.d_k, study.max_weight[strategy], label=t[strategy], **style)
        bottom.plot(study.d_k, study.jacobian_norm[strategy], **style)

    # Where the largest weight can go: 1 (one-hot) and 1/n_keys (uniform). Every label sits in an
    # empty band, clear of the curves (tests/build/test_figure_legibility.py checks no text or legend
    # touches a line): "one-hot" above its line, "uniform" and "no focus" below the uniform line,
    # where the d_k curve flattens onto it from above.
    top.axhline(1.0, color=theme.muted, linestyle=":", linewidth=1.2)
    top.annotate(f"{t['one_hot']} = 1", xy=(1, 1.0), xytext=(0, 2), textcoords="offset points", va="bottom",
                 color=theme.muted, fontsize=SMALL_SIZE)
    uniform = 1 / study.n_keys
    top.axhline(uniform, color=theme.muted, linestyle=":", linewidth=1.2)
    top.annotate(f"{t['uniform']} = 1/{study.n_keys}", xy=(1, uniform), xytext=(0, -3), textcoords="offset points",
                 va="top", ha="left", color=theme.muted, fontsize=SMALL_SIZE)
    top.annotate(t["no_focus"], xy=(study.d_k[-1], uniform), xytext=(0, -3), textcoords="offset points",
                 ha="right", va="top", color=theme.ink(SCALING_COLORS["d_k"]), fontsize=SMALL_SIZE)
    top.set_ylim(-0.1, 1.12)
    top.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    top.set_ylabel(t["max_weight"])

    bottom.set_ylim(0, None)
    bottom.set_ylabel(t["jacobian"])
    # The legend (for both panels: the same three curves) in the lower panel's empty lower left,
    # below the flat curves and left of where the unscaled gradient falls.
    handles, labels = top.get_legend_handles_labels()
    bottom.legend(handles, labels, loc="lower left")
    bottom.annotate(t["vanishing"], xy=(study.d_k[-1], study.jacobian_norm["none"][-1]), xytext=(-12, -3),
                    textcoords="offset points", ha="right", va="center", color=theme.ink(SCALING_COLORS["none"]),
                    fontsize=SMALL_SIZE)
    bottom.set_xscale("log", base=2)
    bottom.xaxis.set_major_locator(FixedLocator([2**i for i in range(0, 11, 2)]))
    bottom.xaxis.set_major_formatter(lambda value, _: f"{value:g}")
    bottom.xaxis.set_minor_locator(NullLocator())
    bottom.set_xlabel(t["x"])
    for ax in (top, bottom):
        ax.grid(True, axis="y")
    fig.suptitle(t["title"].format(n_keys=study.n_keys), fontsize=TITLE_SIZE)
    return fig
