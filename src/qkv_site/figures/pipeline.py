"""Figure: the five steps of self-attention as a diagram, from X to the output."""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.colors import to_hex, to_rgb
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

from qkv_site.figures.labels import text
from qkv_site.figures.style import COLORS, FONT_SIZE, WIDTH, Theme, new_figure
from qkv_site.project import Project

# Layout in data units (x: 0 … 9.6 across the figure); one row per step, top to bottom.
X_RANGE, Y_RANGE = (0.0, 9.2), (0.1, 9.6)
BOX_HEIGHT = 0.8
CENTER = 2.2  # the column of steps 2 to 5
QKV_X = {"q": 1.0, "k": 3.4, "v": 5.4}
STEP_LABEL_X = 6.6
ROW = {"input": 8.9, "qkv": 7.4, "scores": 5.9, "scale": 4.6, "softmax": 3.3, "weighted": 2.0, "output": 0.7}


def _box(ax: Axes, x: float, y: float, width: float, label: str, edge: str, theme: Theme, fill: str | None = None,
         color: str | None = None) -> None:
    ax.add_patch(FancyBboxPatch((x - width / 2, y - BOX_HEIGHT / 2), width, BOX_HEIGHT,
                                boxstyle="round,pad=0,rounding_size=0.15", linewidth=1.8,
                                edgecolor=edge, facecolor=fill or "none"))
    ax.text(x, y, label, ha="center", va="center", color=color or theme.text, fontsize=FONT_SIZE + 1)


def _tint(color: str, theme: Theme) -> str:
    """A box's fill: 12 % of `color` over the page, flattened so text on it can be checked for contrast."""
    page, ink = to_rgb(theme.background), to_rgb(color)
    r, g, b = (p + (c - p) * 0.12 for p, c in zip(page, ink, strict=True))
    return to_hex((r, g, b))


def _arrow(ax: Axes, start: tuple[float, float], end: tuple[float, float], color: str) -> None:
    ax.annotate("", xy=end, xytext=start,
                arrowprops=dict(arrowstyle="-|>,head_length=0.5,head_width=0.25", color=color, linewidth=1.6,
                                shrinkA=0, shrinkB=0))


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """Boxes and arrows: X → ×W_Q/×W_K/×W_V → Q, K, V → QKᵀ → ÷√d_k → softmax → ×V → output."""
    t = text("pipeline", lang)
    width, height = X_RANGE[1] - X_RANGE[0], Y_RANGE[1] - Y_RANGE[0]
    fig = new_figure(height=WIDTH * height / width)
    ax = fig.add_subplot()
    ax.set_xlim(*X_RANGE)
    ax.set_ylim(*Y_RANGE)
    ax.set_aspect("equal")
    ax.axis("off")
    top, bottom = BOX_HEIGHT / 2, -BOX_HEIGHT / 2
    neutral = theme.muted

    # Step 1: X → Q, K, V, each through its own weight matrix.
    input_x = QKV_X["k"]
    _box(ax, input_x, ROW["input"], 2.2, t["input"], neutral, theme)
    for role, x in QKV_X.items():
        color = COLORS[role]
        tint = _tint(color, theme)
        _box(ax, x, ROW["qkv"], 1.6, t[role], color, theme, fill=tint, color=theme.ink(color, on=tint))
        start, end = (input_x + (x - input_x) * 0.35, ROW["input"] + bottom), (x, ROW["qkv"] + top)
        _arrow(ax, start, end, color)
        weight = {"q": r"$\times W_Q$", "k": r"$\times W_K$", "v": r"$\times W_V$"}[role]
        # Beside the arrow's middle: left of a leftward arrow, right of the others, raised off slanted ones.
        side = -1 if x < input_x else 1
        raise_by = 0.15 if x != input_x else 0.0
        ax.text((start[0] + end[0]) / 2 + side * 0.2, (start[1] + end[1]) / 2 + raise_by, weight,
                ha="right" if side < 0 else "left", va="center", color=theme.ink(color))

    # Steps 2 to 5 in one column; Q and K feed the scores, V joins at the weighted sum.
    _box(ax, CENTER, ROW["scores"], 2.2, r"$QK^T$", neutral, theme)
    _arrow(ax, (QKV_X["q"], ROW["qkv"] + bottom), (CENTER - 0.5, ROW["scores"] + top), COLORS["q"])
    _arrow(ax, (QKV_X["k"], ROW["qkv"] + bottom), (CENTER + 0.5, ROW["scores"] + top), COLORS["k"])
    column = [("scores", "scale", r"$\div\sqrt{d_k}$"), ("scale", "softmax", "Softmax"),
              ("softmax", "weighted", r"$\times V$")]
    for above, row, label in column:
        _arrow(ax, (CENTER, ROW[above] + bottom), (CENTER, ROW[row] + top), neutral)
        _box(ax, CENTER, ROW[row], 2.2, label, neutral, theme)
    ax.plot([QKV_X["v"], QKV_X["v"]], [ROW["qkv"] + bottom, ROW["weighted"]], color=COLORS["v"], linewidth=1.6)
    _arrow(ax, (QKV_X["v"], ROW["weighted"]), (CENTER + 1.1, ROW["weighted"]), COLORS["v"])
    _arrow(ax, (CENTER, ROW["weighted"] + bottom), (CENTER, ROW["output"] + top), neutral)
    _box(ax, CENTER + 1.4, ROW["output"], 6.2, t["output"], theme.text, theme)

    # The article's step names, level with their boxes.
    for step, row in (("step1", "qkv"), ("step2", "scores"), ("step3", "scale"), ("step4", "softmax"),
                      ("step5", "weighted")):
        ax.text(STEP_LABEL_X, ROW[row], t[step], ha="left", va="center", linespacing=1.3)
    return fig
