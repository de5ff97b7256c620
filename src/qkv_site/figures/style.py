"""The look of every figure: Q/K/V colours, a light and a dark theme, and the matplotlib settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cycler import cycler
from matplotlib.colors import LinearSegmentedColormap, to_hex, to_rgb
from matplotlib.figure import Figure

from qkv_site.figures import fonts

# One colour per role in every figure: lines, bars and fills (3.4:1 to 4.7:1 on white and on
# Material's slate #1e2129). Blue / orange / bluish green after Okabe & Ito, which the common
# colour-vision deficiencies still tell apart; the letters Q, K, V always go with them. Text in a
# role's colour is `Theme.ink` of it: the same hue, darker or lighter until it reads at 4.5:1.
COLORS = {"q": "#2f7ed8", "k": "#d9650f", "v": "#009e73"}

# The three scalings of the scores (keys of qkv.analysis.SCALINGS). √d_k shares the purple of
# the attention-weight heatmaps; markers and line styles tell them apart without colour too.
SCALING_COLORS = {"none": "#cc4c8c", "d_k": "#808590", "sqrt_d_k": "#8c6bc8"}
SCALING_STYLES = {"none": ("o", "-"), "d_k": ("s", "--"), "sqrt_d_k": ("D", "-")}

# A phone's text column is 343 px wide (375 px screen): a figure W points wide is shown there at
# 343 / W of its size, so text of s points reads as s · 343 / W px. 11.5 pt on 4.8 in (345.6 pt)
# gives 11.4 px; on a desktop the SVG keeps its own 461 px width and the text is body-sized.
WIDTH = 4.8  # inches
FONT_SIZE = 12.5  # points; nothing is smaller than SMALL_SIZE
SMALL_SIZE = 11.5
TITLE_SIZE = 13.5
PHONE_WIDTH = 343  # CSS px, the text column of a 375 px phone
MIN_PHONE_TEXT = 11  # CSS px: the smallest text a figure may show there
TEXT_CONTRAST = 4.5  # WCAG AA for normal text, in both schemes


def luminance(color: Any) -> float:
    """WCAG 2 relative luminance of a matplotlib colour (alpha ignored).

    >>> round(luminance("#ffffff"), 3), round(luminance("#000000"), 3)
    (1.0, 0.0)
    """
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: Any, b: Any) -> float:
    """WCAG 2 contrast ratio of two colours, 1 to 21.

    >>> round(contrast("#d9650f", "#ffffff"), 2)
    3.61
    """
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@dataclass(frozen=True)
class Theme:
    """The colours of one Material colour scheme ("light" = default, "dark" = slate)."""

    scheme: str
    text: str  # Material's --md-default-fg-color, flattened onto the background
    muted: str  # --md-default-fg-color--light: ticks, spines, secondary lines
    grid: str
    background: str  # the page behind the (transparent) figure
    # Attention-weight colormap, 0 → 0.5 → 1: from a grey close to the background to a saturated
    # purple, so more attention is always a stronger colour (darker on white, brighter on slate).
    # The 1 end stays light enough (light) or dark enough (dark) for the theme's text on every cell.
    heat: tuple[str, str, str]

    @property
    def heatmap(self) -> LinearSegmentedColormap:
        """Colormap for weights in [0, 1]: close to the background at 0, saturated purple at 1."""
        return LinearSegmentedColormap.from_list(f"weights-{self.scheme}", self.heat)

    def on(self, color: Any) -> str:
        """The text colour with the most contrast on a fill of `color`: a soft black or a soft white."""
        return max(("#212121", "#f5f5f7"), key=lambda ink: contrast(ink, color))

    def ink(self, color: Any, on: Any = None) -> str:
        """`color` for text on `on` (the page by default): the same hue, mixed toward black on the light
        page and toward white on the dark one, in steps of 2 %, until it reaches TEXT_CONTRAST.

        >>> LIGHT.ink("#d9650f"), round(contrast(LIGHT.ink("#d9650f"), "#ffffff"), 2)
        ('#bf590d', 4.52)
        """
        background = self.background if on is None else on
        target = (0.0, 0.0, 0.0) if self.scheme == "light" else (1.0, 1.0, 1.0)
        rgb = to_rgb(color)
        for step in range(51):
            r, g, b = (c + (t - c) * step / 50 for c, t in zip(rgb, target, strict=True))
            mixed = to_hex((r, g, b))
            if contrast(mixed, background) >= TEXT_CONTRAST:
                return mixed
        raise ValueError(f"no shade of {color} reaches {TEXT_CONTRAST}:1 on {background}")


LIGHT = Theme(
    scheme="light",
    text="#212121",
    muted="#757575",
    grid="#e3e3e3",
    background="#ffffff",
    heat=("#f3f0fa", "#c5b6ea", "#9777dc"),
)
DARK = Theme(
    scheme="dark",
    text="#d5d7dd",
    muted="#8c8e95",
    grid="#3a3d47",
    background="#1e2129",
    heat=("#2b2e3b", "#4a3f7e", "#6a4fcb"),
)
THEMES = {"light": LIGHT, "dark": DARK}


def rc(theme: Theme) -> dict[str, Any]:
    """matplotlib settings for `theme`: the CJK font to lay all text out with, transparent background, stable SVG."""
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
        "svg.fonttype": "none",  # labels as <text>, drawn by the reader's fonts (figures.svg_text)
        "svg.hashsalt": "qkv-site",  # stable clip-path ids, so an unchanged figure is byte-identical
        "path.simplify": True,
    }


def new_figure(height: float, width: float = WIDTH) -> Figure:
    """A figure outside pyplot (no global state), laid out by matplotlib's constrained layout."""
    return Figure(figsize=(width, height), layout="constrained")
