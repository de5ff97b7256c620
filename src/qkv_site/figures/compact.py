"""The SVG matplotlib writes, in fewer bytes for the page: the same picture, drawn the same.

`coarse` rounds what is finer than the screen shows (positions to a tenth of a point, the outlines of
formulas' glyphs to 1/200 em); `compact` then writes every path with relative commands (`qkv_site.svg_path`) and drops
what a browser never reads: the DTD, the metadata block, matplotlib's comments naming each text, the
ids nothing refers to, the groups without attributes and the whitespace between tags.
"""

from __future__ import annotations

import re

from qkv_site.svg_path import relative_path

# Where matplotlib writes positions (in points, with six decimals): path data, x/y attributes, translations
# and the centres of rotations (a label turned about its anchor).
# A tenth of a point is a seventh of a pixel on the page, so one decimal draws the same figure in fewer bytes.
# Scales (the glyphs' scale(0.015625)) are not positions and keep every digit.
_GEOMETRY = re.compile(r'( d="[^"]*"| [xy]="[^"]*"|translate\([^)]*\)|rotate\([^)]*\))')
_DECIMAL = re.compile(r"-?\d+\.\d{2,}")
# A formula glyph's outline (`svg_text` keeps mathtext's own glyphs as paths) in units of 1/6400 em, scaled by
# 1/64 where it is used. In units of 32 of those (1/200 em: 0.09 px in a 13.5 pt title, half a pixel where the
# zoom dialog shows a label 100 px high) it draws the same shape to the eye with a digit less per coordinate
# (1/400 em: 8 % more bytes).
_GLYPH = re.compile(r'(<path id="[^"]*" d=")([^"]*)(" transform="scale\()0\.015625(\)"/>)')
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
GLYPH_UNIT = 32

_PATH_DATA = re.compile(r'( d=")([^"]*)(")')
_UNREAD = re.compile(r"<!DOCTYPE[^>]*>\s*|<metadata>.*?</metadata>\s*|<!--.*?-->", re.DOTALL)
_BETWEEN_TAGS = re.compile(r">\s+<")
_ID = re.compile(r' id="([^"]*)"')
_BARE_GROUP = re.compile(r"<g>((?:(?!</?g[ >/]).)*)</g>", re.DOTALL)
_EMPTY_GROUP = re.compile(r"<g/>")
# matplotlib turns every label it anchors by its angle, also by none (a label as <text>: `svg_text`).
_NO_TURN = re.compile(r' transform="rotate\(-?0(?: [-\d.]+ [-\d.]+)?\)"')


def coarse(svg: str) -> str:
    """`svg` with every position rounded to a tenth of a point and every glyph outline to 1/200 em.

    >>> coarse('<path d="M 82.506519 140.578445 L 84 -0.012" transform="translate(3.14159 0) scale(0.015625)"/>')
    '<path d="M 82.5 140.6 L 84 0" transform="translate(3.1 0) scale(0.015625)"/>'
    >>> coarse('<text x="85.528581" y="242" transform="rotate(-90 85.528581 242.001845)">Q</text>')
    '<text x="85.5" y="242" transform="rotate(-90 85.5 242)">Q</text>'
    >>> coarse('<path id="g-1" d="M 1946 -83 L 24 4016 z" transform="scale(0.015625)"/>')
    '<path id="g-1" d="M 61 -3 L 1 126 z" transform="scale(0.5)"/>'
    """
    def tenth(number: re.Match[str]) -> str:
        return f"{round(float(number.group()), 1) + 0.0:g}"

    def glyph(path: re.Match[str]) -> str:
        outline = _NUMBER.sub(lambda n: str(round(float(n.group()) / GLYPH_UNIT) + 0), path[2])
        return f"{path[1]}{outline}{path[3]}{0.015625 * GLYPH_UNIT:g}{path[4]}"
    return _GLYPH.sub(glyph, _GEOMETRY.sub(lambda part: _DECIMAL.sub(tenth, part.group()), svg))


def compact(svg: str) -> str:
    """`svg` (as `coarse` left it) with relative path data and nothing a browser does not read.

    >>> compact('<text x="8.5" y="2" transform="rotate(-0 8.5 2)">Q</text><text transform="rotate(-90 8.5 2)">K</text>')
    '<text x="8.5" y="2">Q</text><text transform="rotate(-90 8.5 2)">K</text>'
    >>> compact('<!DOCTYPE svg>\\n<svg>\\n <g id="figure_1">\\n  <!-- love -->\\n  <g>\\n   '
    ...         '<use xlink:href="#m1" x="2"/>\\n  </g>\\n  <path id="m1" d="M 0 0 \\nL 0 3.5 \\n"/>\\n </g>\\n</svg>')
    '<svg><use xlink:href="#m1" x="2"/><path id="m1" d="m0 0 0 3.5"/></svg>'
    """
    svg = _NO_TURN.sub("", _BETWEEN_TAGS.sub("><", _UNREAD.sub("", svg)))
    svg = _PATH_DATA.sub(lambda path: path[1] + relative_path(path[2]) + path[3], svg)
    referred = set(re.findall(r"#([^\s\"')]+)", svg))
    svg = _ID.sub(lambda found: found.group() if found[1] in referred else "", svg)
    svg = _EMPTY_GROUP.sub("", svg)
    while True:  # a group without attributes holds its children only: they take its place
        unwrapped = _BARE_GROUP.sub(r"\1", svg)
        if unwrapped == svg:
            return svg
        svg = unwrapped
