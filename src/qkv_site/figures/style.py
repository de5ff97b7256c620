"""The look of every figure: Q/K/V colours, a light and a dark theme, and the matplotlib settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cycler import cycler
from matplotlib.colors import LinearSegmentedColormap, to_rgb
from matplotlib.figure import Figure

from qkv_site.figures import fonts

# One colour per role in every figure, readable on white and on Material's slate background
# (#1e2129): contrast 3.4 to 4.7 on both. Blue / orange / bluish green after Okabe & Ito, which
# the common colour-vision deficiencies still tell apart; the letters Q, K, V always go with them.
COLORS = {"q": "#2f7ed8", "k": "#d9650f", "v": "#009e73"}

# The three scalings of the scores (keys of qkv.analysis.SCALINGS). √d_k shares the purple of
# the attention-weight heatmaps; markers and line styles tell them apart without colour too.
SCALING_COLORS = {"none": "#cc4c8c", "d_k": "#808590", "sqrt_d_k": "#8c6bc8"}
SCALING_STYLES = {"none": ("o", "-"), "d_k": ("s", "--"), "sqrt_d_k": ("D", "-")}

WIDTH = 6.0  # inches: the SVG is 576 px wide, within Material's text column; a phone shows it at ~60 %
FONT_SIZE = 12  # points; phones show the figures scaled down, so no text is smaller than SMALL_SIZE
SMALL_SIZE = 11
TITLE_SIZE = 13


@dataclass(frozen=True)
class Theme:
    """The colours of one Material colour scheme ("light" = default, "dark" = slate)."""

    scheme: str
    text: str  # Material's --md-default-fg-color, flattened onto the background
    muted: str  # --md-default-fg-color--light: ticks, spines, secondary lines
    grid: str
    background: str  # the page behind the (transparent) figure
    heat: tuple[str, str, str]  # attention-weight colormap: 0 → 0.5 → 1

    @property
    def heatmap(self) -> LinearSegmentedColormap:
        """Colormap for weights in [0, 1]: close to the background at 0, saturated purple at 1."""
        return LinearSegmentedColormap.from_list(f"weights-{self.scheme}", self.heat)

    def on(self, color: Any) -> str:
        """The text colour readable on a fill of `color` (dark on light fills, light on dark ones)."""
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(color))
        luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
        return "#212121" if luminance > 0.25 else "#f5f5f7"


LIGHT = Theme(
    scheme="light",
    text="#212121",
    muted="#757575",
    grid="#e3e3e3",
    background="#ffffff",
    heat=("#f3f0fa", "#a58fd8", "#4a2a9a"),
)
DARK = Theme(
    scheme="dark",
    text="#d5d7dd",
    muted="#8c8e95",
    grid="#3a3d47",
    background="#1e2129",
    heat=("#2b2e3b", "#6a55a8", "#d4c8f5"),
)
THEMES = {"light": LIGHT, "dark": DARK}


def rc(theme: Theme) -> dict[str, Any]:
    """matplotlib settings for `theme`: the CJK font for all text, transparent background, stable SVG."""
    return {
        "font.family": [fonts.register()],
        "font.size": FONT_SIZE,
        "axes.titlesize": TITLE_SIZE,
        "axes.labelsize": FONT_SIZE,
        "xtick.labelsize": SMALL_SIZE,
        "ytick.labelsize": SMALL_SIZE,
        "legend.fontsize": SMALL_SIZE,
        "mathtext.fontset": "dejavusans",
        "axes.unicode_minus": True,
        "text.color": theme.text,
        "axes.labelcolor": theme.text,
        "axes.titlecolor": theme.text,
        "axes.edgecolor": theme.muted,
        "xtick.color": theme.muted,
        "ytick.color": theme.muted,
        "xtick.labelcolor": theme.text,
        "ytick.labelcolor": theme.text,
        "grid.color": theme.grid,
        "grid.linewidth": 0.8,
        "legend.frameon": False,
        "legend.labelcolor": theme.text,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.prop_cycle": cycler(color=list(SCALING_COLORS.values())),
        "lines.linewidth": 2.0,
        "lines.markersize": 6,
        "figure.facecolor": "none",
        "axes.facecolor": "none",
        "savefig.facecolor": "none",
        "savefig.transparent": True,
        "svg.fonttype": "path",  # glyphs as outlines: the browser needs no CJK font
        "svg.hashsalt": "qkv-site",  # stable clip-path ids, so an unchanged figure is byte-identical
        "path.simplify": True,
    }


def new_figure(height: float, width: float = WIDTH) -> Figure:
    """A figure outside pyplot (no global state), laid out by matplotlib's constrained layout."""
    return Figure(figsize=(width, height), layout="constrained")
