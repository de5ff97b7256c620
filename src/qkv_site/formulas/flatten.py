"""A typeset formula's SVG with fewer groups: the same glyphs at the same places, in fewer bytes.

MathJax nests a group per box of TeX's layout; after `qkv_site.formulas.pages.lean` many are left
that do nothing (``<g>``) or only move one element (``<g transform="translate(1249,0)"><use …/></g>``).
``flatten`` takes them away: a group that moves nothing gives its place to its elements, a group around
one element adds its translation to that element (a glyph's or a rule's ``x`` and ``y``, a nested
``svg``'s, a text's or a group's ``transform``), a scaling group around one glyph or rule (a script,
``translate(553,-150) scale(0.707)``) gives it its transform, and a group left empty goes. A group
that moves several elements keeps its translation: the elements' offsets inside it (``x="500"`` for the
second digit of a number) repeat from formula to formula, and gzip packs repeats; absolute positions
(every glyph's ``x`` from the formula's start) measured 0.8 KB more on the worked example's page than
the nested ones. The arithmetic is decimal and exact, so every glyph, rule and text keeps its place:
``placements`` of the markup before and after must be equal (checked for every formula as it is
flattened; a difference stops the build).

The colours and stroke width MathJax writes on each formula's outer group (``stroke="currentColor"
fill="currentColor" stroke-width="0"``) are the same for every formula: the site's stylesheet
(extra.css, ``mjx-container[jax="SVG"] > svg > g``) gives them to that group instead.

Markup the pass does not know (an element or attribute MathJax did not write for these formulas, a
transform other than translations and scalings, text where none belongs) is a ``FormulaMarkupError``
naming it: no page rather than a formula drawn wrongly.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from decimal import Decimal
from html import escape

# The attributes each element may carry, as MathJax 3's SVG output writes them (after `pages.lean`).
KNOWN = {
    "svg": {"style", "width", "height", "role", "focusable", "viewBox", "aria-hidden", "x", "y"},
    "g": {"transform", "stroke", "fill", "stroke-width", "data-mml-node"},
    "use": {"href", "x", "y", "transform"},
    "rect": {"width", "height", "x", "y", "transform", "data-frame"},
    "text": {"data-variant", "transform", "font-size", "font-family", "font-weight", "font-style"},
}
# What the site's stylesheet gives every formula's outer group (extra.css).
SHARED = {"stroke": "currentColor", "fill": "currentColor", "stroke-width": "0"}
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)"
_OPERATION = re.compile(rf"\s*(translate|scale)\(\s*({_NUMBER})(?:\s*[,\s]\s*({_NUMBER}))?\s*\)\s*")
_SVG = re.compile(r"<svg\b.*</svg>", re.DOTALL)
ZERO = Decimal(0)


class FormulaMarkupError(ValueError):
    """SVG markup the pass does not understand (it names what): better no page than a formula drawn wrongly."""


Operation = tuple[str, Decimal, Decimal]  # ("translate", x, y) or ("scale", x, y)


def operations(transform: str) -> list[Operation]:
    """A transform attribute as its translations and scalings.

    >>> operations("translate(553,-150) scale(0.707)")
    [('translate', Decimal('553'), Decimal('-150')), ('scale', Decimal('0.707'), Decimal('0.707'))]
    """
    found: list[Operation] = []
    position = 0
    while position < len(transform):
        match = _OPERATION.match(transform, position)
        if match is None or match.end() == position:
            raise FormulaMarkupError(f"a transform this pass does not know: {transform!r}")
        name, first, second = match.group(1), Decimal(match.group(2)), match.group(3)
        found.append((name, first, Decimal(second) if second is not None else (ZERO if name == "translate" else first)))
        position = match.end()
    return found


def _number(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "0") else text


def _transform(operations_: list[Operation]) -> str:
    def one(name: str, x: Decimal, y: Decimal) -> str:
        if name == "scale" and x == y:
            return f"scale({_number(x)})"
        return f"{name}({_number(x)},{_number(y)})"

    return " ".join(one(*operation) for operation in operations_)


def _check(element: ET.Element) -> None:
    if element.tag not in KNOWN:
        raise FormulaMarkupError(f"an element this pass does not know: <{element.tag}>")
    unknown = set(element.attrib) - KNOWN[element.tag]
    if unknown:
        raise FormulaMarkupError(f"attributes of <{element.tag}> this pass does not know: {sorted(unknown)}")
    if element.tag != "text" and (element.text or "").strip():
        raise FormulaMarkupError(f"text inside <{element.tag}>: {element.text!r}")
    for child in element:
        if (child.tail or "").strip():
            raise FormulaMarkupError(f"text after <{child.tag}>: {child.tail!r}")
    if element.tag in ("use", "rect", "text") and len(element):
        raise FormulaMarkupError(f"<{element.tag}> with elements inside")


def _moved(element: ET.Element, dx: Decimal, dy: Decimal) -> ET.Element:
    """``element`` (a leaf or a nested svg) drawn ``dx``, ``dy`` further, in its parent's units."""
    if dx == 0 and dy == 0:
        return element
    if element.tag in ("g", "text") or "transform" in element.attrib:
        own = operations(element.get("transform", ""))
        if own and own[0][0] == "translate":
            own[0] = ("translate", own[0][1] + dx, own[0][2] + dy)
        else:
            own.insert(0, ("translate", dx, dy))
        element.set("transform", _transform(own))
        return element
    for name, step in (("x", dx), ("y", dy)):
        value = Decimal(element.get(name, "0")) + step
        if value == 0 and element.tag == "use":
            element.attrib.pop(name, None)
        else:
            element.set(name, _number(value))
    return element


def _flattened(element: ET.Element, dx: Decimal, dy: Decimal) -> list[ET.Element]:
    """What takes ``element``'s place when it is drawn ``dx``, ``dy`` further (a translation of a group
    around it, folded)."""
    _check(element)
    if element.tag in ("use", "rect", "text"):
        return [_moved(element, dx, dy)]
    children = [new for child in list(element) for new in _flattened(child, ZERO, ZERO)]
    if element.tag == "svg":  # a nested svg (a stretched delimiter's middle): its content keeps its own units
        element[:] = children
        return [_moved(element, dx, dy)]
    own = operations(element.get("transform", ""))
    while own and own[0][0] == "translate":
        dx, dy = dx + own[0][1], dy + own[0][2]
        own.pop(0)
    if not children:  # draws nothing
        return []
    if not own:  # it only moves its content
        if set(element.attrib) - {"transform"}:
            raise FormulaMarkupError(f"a group with attributes other than a transform: {element.attrib}")
        if len(children) == 1:  # one element: it moves itself
            return [_moved(children[0], dx, dy)]
        if dx == 0 and dy == 0:  # moves nothing: its elements take its place
            return children
        own = [("translate", dx, dy)]
    elif dx != 0 or dy != 0:
        own.insert(0, ("translate", dx, dy))
    only = children[0]
    if (len(children) == 1 and only.tag in ("use", "rect") and "transform" not in only.attrib
            and set(element.attrib) == {"transform"}):
        only.set("transform", _transform(own))  # the group's transform on its one glyph (applied before x, y)
        return [only]
    element.set("transform", _transform(own))
    element[:] = children
    return [element]


def _write(element: ET.Element) -> str:
    attributes = "".join(f' {name}="{escape(value)}"' for name, value in element.attrib.items())
    inside = escape(element.text or "", quote=False) + "".join(_write(child) for child in element)
    if not inside and element.tag != "svg":
        return f"<{element.tag}{attributes}/>"
    return f"<{element.tag}{attributes}>{inside}</{element.tag}>"


def _parse(svg: str) -> ET.Element:
    try:
        return ET.fromstring(svg)
    except ET.ParseError as error:
        raise FormulaMarkupError(f"SVG this pass cannot read ({error}): {svg[:120]}…") from None


def _root_group(root: ET.Element) -> ET.Element:
    _check(root)
    if len(root) != 1 or root[0].tag != "g" or root[0].get("transform") != "scale(1,-1)":
        raise FormulaMarkupError(f"a formula's svg without MathJax's one flipping group: {_write(root)[:160]}…")
    _check(root[0])
    return root[0]


def flatten_svg(svg: str) -> str:
    """One formula's ``<svg>`` with its translating groups folded into what they hold.

    >>> flatten_svg('<svg viewBox="0 0 1 1"><g stroke="currentColor" fill="currentColor" stroke-width="0" '
    ...             'transform="scale(1,-1)"><g><g transform="translate(853,0)"><use href="#a"/>'
    ...             '<g transform="translate(553,-150) scale(0.707)"><use href="#b" x="500"/></g></g>'
    ...             '<rect width="9" height="6" x="853" y="775.6"/></g></g></svg>')
    ... # doctest: +NORMALIZE_WHITESPACE
    '<svg viewBox="0 0 1 1"><g transform="scale(1,-1)"><g transform="translate(853,0)"><use href="#a"/><use
     href="#b" x="500" transform="translate(553,-150) scale(0.707)"/></g><rect width="9" height="6" x="853"
     y="775.6"/></g></svg>'
    """
    root = _parse(svg)
    group = _root_group(root)
    for name, value in SHARED.items():
        written = group.attrib.pop(name, value)
        if written != value:
            raise FormulaMarkupError(f"a formula drawn with {name}={written!r}, not the stylesheet's {value!r}")
    group[:] = [new for child in list(group) for new in _flattened(child, ZERO, ZERO)]
    flattened = _write(root)
    if placements(flattened) != placements(svg):  # exact: decimal arithmetic, nothing rounded
        raise FormulaMarkupError(f"flattening moved a glyph of {svg[:160]}…")
    return flattened


def flatten(markup: str) -> str:
    """A typeset formula (``<mjx-container>`` with its ``<svg>`` and MathML) with its SVG flattened."""
    found = _SVG.search(markup)
    if found is None:
        raise FormulaMarkupError(f"a formula without svg: {markup[:120]}…")
    return markup[: found.start()] + flatten_svg(found.group(0)) + markup[found.end():]


# ---- where everything is drawn: the check of the pass --------------------------------------------

Matrix = tuple[Decimal, Decimal, Decimal, Decimal, Decimal, Decimal]  # a b c d e f, as SVG's matrix()
IDENTITY: Matrix = (Decimal(1), ZERO, ZERO, Decimal(1), ZERO, ZERO)


def _times(m: Matrix, n: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    p, q, r, s, t, u = n
    return (a * p + c * q, b * p + d * q, a * r + c * s, b * r + d * s, a * t + c * u + e, b * t + d * u + f)


def _matrix(transform: str) -> Matrix:
    matrix = IDENTITY
    for name, x, y in operations(transform):
        step = (Decimal(1), ZERO, ZERO, Decimal(1), x, y) if name == "translate" else (x, ZERO, ZERO, y, ZERO, ZERO)
        matrix = _times(matrix, step)
    return matrix


@dataclass(frozen=True)
class Placement:
    """A drawn element: what it is (tag, glyph, size, text, style) and the matrix from its own units to the svg's."""

    what: tuple[str, ...]
    matrix: Matrix

    def near(self, other: Placement, tolerance: Decimal) -> bool:
        return self.what == other.what and all(abs(x - y) <= tolerance for x, y in zip(self.matrix, other.matrix, strict=True))


_DRAWN_BY = {"use": ("href",), "rect": ("width", "height"), "svg": ("width", "height", "viewBox"),
             "text": ("font-size", "font-family", "font-weight", "font-style", "data-variant")}


def placements(svg: str) -> list[Placement]:
    """Every glyph, rule, text and nested svg of a formula's svg, in document order, with the matrix that places it
    (the outer group's colours and stroke width too, as the first entry, so that moving them to the stylesheet is seen).

    >>> [[str(n) for n in p.matrix] for p in placements('<svg><g transform="scale(1,-1)"><g transform="translate(2,3) '
    ...                                                 'scale(0.5)"><use href="#a" x="4"/></g></g></svg>')[1:]]
    [['0.5', '0.0', '0.0', '-0.5', '4.0', '-3.0']]
    """
    root = _parse(svg)
    group = _root_group(root)
    found = [Placement(("style", *(f"{name}={group.get(name, value)}" for name, value in SHARED.items())), IDENTITY)]

    def walk(element: ET.Element, matrix: Matrix) -> None:
        _check(element)
        matrix = _times(matrix, _matrix(element.get("transform", "")))
        if element.tag in _DRAWN_BY:
            x, y = Decimal(element.get("x", "0")), Decimal(element.get("y", "0"))
            placed = _times(matrix, (Decimal(1), ZERO, ZERO, Decimal(1), x, y))
            what = (element.tag, *(element.get(name, "") for name in _DRAWN_BY[element.tag]), (element.text or ""))
            found.append(Placement(what, placed))
            matrix = placed
        for child in element:
            walk(child, matrix)

    for child in group:
        walk(child, _matrix(group.get("transform", "")))
    return found
