"""matplotlib's SVG backend with the labels as SVG ``<text>``, drawn by the reader's own fonts.

A figure is an ``<img>``: it can use the fonts installed on the reader's system and nothing else (no web
font, no network). matplotlib lays a label out with the figure font (`fonts.FAMILY`, Noto Sans CJK SC);
the browser draws it with the first family of `CSS_FAMILIES` the system has. Their Chinese characters are
all one em wide, but Latin letters and digits differ by a few per cent, so every ``<text>`` carries the
width matplotlib measured (``textLength``, the advance width of the label at its size) and the browser fits
what it draws to exactly that width: a label ends where matplotlib's layout ended it, whatever the font,
and a centred or right-aligned one (``text-anchor``) stays on its point. A label with a formula (``$…$``,
matplotlib's mathtext) is placed glyph by glyph: its runs of words in the figure font are ``<text>`` the
same way, each at its own place; the formula's glyphs (DejaVu Sans, matplotlib's own math font, which a
reader's system need not have) and its rules (a root's bar) stay outlines, few and exact.

Used by `registry.render_svg` as ``savefig(…, backend="module://qkv_site.figures.svg_text")``.
"""

from __future__ import annotations

import codecs
import re
from typing import Any

import matplotlib as mpl
from matplotlib import cbook
from matplotlib.backends.backend_mixed import MixedModeRenderer
from matplotlib.backends.backend_svg import FigureCanvasSVG, RendererSVG, _generate_css, _generate_transform
from matplotlib.colors import rgb2hex
from matplotlib.ft2font import LoadFlags
from matplotlib.textpath import TextToPath

from qkv_site.figures import fonts

# The CSS font families of the labels: the figure font itself where it is installed (most Linux desktops and
# Android: Noto Sans CJK SC; Source Han Sans SC is the same design under Adobe's name), then the fonts the
# systems of Chinese readers ship (macOS and iOS: PingFang SC, before it Hiragino Sans GB; Windows:
# Microsoft YaHei) and the system's sans-serif. Each draws both the Chinese and the Latin of a label.
CSS_FAMILIES = ("Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "sans-serif")
FONT_FAMILY = ", ".join(name if name == "sans-serif" else f"'{name}'" for name in CSS_FAMILIES)

_FAMILY_STYLE = re.compile(r"font-family: ?[^;]*;? ?")


def _length(width: float) -> str:
    """A width in points to a tenth, as `compact.coarse` writes positions."""
    return f"{round(width, 1) + 0.0:g}"


def _in_figure_font(glyph_repr: str) -> bool:
    return glyph_repr.startswith(f"{fonts.POSTSCRIPT_NAME}-")  # TextToPath names a glyph font-index


class _FormulaOutlines(TextToPath):
    """`TextToPath` whose mathtext outlines leave out the figure font's glyphs (they are written as text)."""

    def get_glyphs_mathtext(self, prop: Any, s: str, glyph_map: Any = None, return_new_glyphs_only: bool = False) -> Any:
        glyph_info, glyph_map_new, rects = super().get_glyphs_mathtext(prop, s, glyph_map, return_new_glyphs_only)
        glyph_info = [glyph for glyph in glyph_info if not _in_figure_font(glyph[0])]
        for name in [name for name in glyph_map_new if _in_figure_font(name)]:
            del glyph_map_new[name]
        return glyph_info, glyph_map_new, rects


class TextRenderer(RendererSVG):
    """`RendererSVG` for ``svg.fonttype: none``: each label a ``<text>`` with ``textLength`` and without
    a font family of its own (the figure's outer group names `CSS_FAMILIES` once); formulas as outlines.

    matplotlib's SVG backend has no type annotations: its calls below are marked for mypy."""

    writer: Any  # matplotlib's XMLWriter

    def __init__(self, width: float, height: float, svgwriter: Any, **kwargs: Any) -> None:
        super().__init__(width, height, svgwriter, **kwargs)  # type: ignore[no-untyped-call]
        self.writer.start("g", attrib={"font-family": FONT_FAMILY})  # closed with the <svg> by finalize
        self._text2path = _FormulaOutlines()

    def _runs(self, s: str, prop: Any) -> list[tuple[float, float, float, float, str]]:
        """The words of a mathtext label set in the figure font: (x, y, size, width, text) in points from the
        label's origin, one run for each stretch of glyphs that follow each other with nothing between."""
        _, _, _, glyphs, _ = self._text2path.mathtext_parser.parse(s, 72, prop)
        runs: list[tuple[float, float, float, float, str]] = []
        for font, size, code, index, x, y in sorted(glyphs, key=lambda glyph: glyph[4]):
            if font.postscript_name != fonts.POSTSCRIPT_NAME or chr(code).isspace():
                continue
            font.set_size(size, 72)
            advance = font.load_glyph(index, flags=LoadFlags.NO_HINTING).linearHoriAdvance / 65536
            if runs:
                x0, y0, size0, width0, text0 = runs[-1]
                if (y0, size0) == (-y, size) and abs(x0 + width0 - x) < size / 100:
                    runs[-1] = (x0, y0, size0, x + advance - x0, text0 + chr(code))
                    continue
            runs.append((x, -y, size, advance, chr(code)))
        return runs

    def _draw_formula(self, gc: Any, x: float, y: float, s: str, prop: Any, angle: float, mtext: Any) -> None:
        self._draw_text_as_path(gc, x, y, s, prop, angle, True, mtext)  # type: ignore[no-untyped-call]  # its glyphs, rules
        style = {"fill": rgb2hex(gc.get_rgb())}
        alpha = gc.get_alpha() if gc.get_forced_alpha() else gc.get_rgb()[3]
        if alpha != 1:
            style["opacity"] = f"{alpha:g}"
        css = _generate_css(style)  # type: ignore[no-untyped-call]
        turn = _generate_transform([("translate", (x, y)), ("rotate", (-angle,))])  # type: ignore[no-untyped-call]
        self.writer.start("g", style=css, transform=turn)
        for left, baseline, size, width, text in self._runs(s, prop):
            self.writer.element("text", text, x=_length(left), y=_length(baseline), style=f"font-size: {size:g}px",
                                textLength=_length(width), lengthAdjust="spacingAndGlyphs")
        self.writer.end("g")

    def _draw_text_as_text(self, gc: Any, x: float, y: float, s: str, prop: Any, angle: float,
                           ismath: Any, mtext: Any = None) -> None:
        if ismath:
            self._draw_formula(gc, x, y, s, prop, angle, mtext)
            return
        width, _, _ = self.get_text_width_height_descent(s, prop, ismath)  # type: ignore[no-untyped-call]  # as laid out
        element = self.writer.element

        def fitted(tag: str, text: str | None = None, attrib: dict[str, str] | None = None, **extra: str) -> None:
            attrib = dict(attrib or {})
            if tag == "text":
                family = fonts.FAMILY
                if family not in attrib.get("style", ""):
                    raise RuntimeError(f"label {s!r} is not set in {family!r}: {attrib.get('style')}")
                attrib["style"] = _FAMILY_STYLE.sub("", attrib["style"])
                attrib["textLength"] = _length(width)
                attrib["lengthAdjust"] = "spacingAndGlyphs"
            element(tag, text, attrib, **extra)

        self.writer.element = fitted  # for the one element super() writes
        try:
            super()._draw_text_as_text(gc, x, y, s, prop, angle, ismath, mtext)  # type: ignore[no-untyped-call]
        finally:
            del self.writer.element  # the bound method of the class again


class TextCanvas(FigureCanvasSVG):
    """`FigureCanvasSVG` drawing with `TextRenderer`."""

    def print_svg(self, filename: Any, *, bbox_inches_restore: Any = None, metadata: Any = None, **_: Any) -> None:
        # matplotlib passes its own backends only the keywords they take, another backend all of them:
        # dpi, facecolor, edgecolor and orientation, which an SVG drawn at 72 dpi does not use.
        if mpl.rcParams["svg.fonttype"] != "none":
            raise ValueError("svg_text writes labels as text: set svg.fonttype to 'none'")
        with cbook.open_file_cm(filename, "w", encoding="utf-8") as opened:
            fh = opened if cbook.file_requires_unicode(opened) else codecs.getwriter("utf-8")(opened)
            dpi = self.figure.dpi
            self.figure.dpi = 72
            width, height = self.figure.get_size_inches()
            renderer: Any = MixedModeRenderer(  # type: ignore[no-untyped-call]
                self.figure, width, height, dpi,
                TextRenderer(width * 72, height * 72, fh, image_dpi=dpi, metadata=metadata),
                bbox_inches_restore=bbox_inches_restore)
            self.figure.draw(renderer)
            renderer.finalize()


FigureCanvas = TextCanvas  # what matplotlib looks for in a backend module
