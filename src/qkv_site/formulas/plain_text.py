"""A formula as plain text for the places that cannot show markup: ``<title>``, the search index.

It reads the MathML that MathJax writes beside each SVG, so it follows MathJax's reading of the TeX:
sub- and superscripts become Unicode where Unicode has the letters (d_k → dₖ, K^T → Kᵀ), a root
becomes √, a fraction a/b.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

SUBSCRIPTS = dict(zip("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True))
SUPERSCRIPTS = dict(zip("0123456789+-−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVW",
                        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ", strict=True))
SPACED = set("=≈≠≤≥∝∈→+−×")  # operators written with a space on each side
INVISIBLE = "\u2061\u2062\u2063\u2064"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _script(text: str, table: dict[str, str], marker: str) -> str:
    if text and all(char in table for char in text):
        return "".join(table[char] for char in text)
    return marker + (text if len(text) == 1 else f"({text})")


def _grouped(text: str) -> str:
    return text if len(text) <= 1 or re.fullmatch(r"√?\w+|\(.*\)", text) else f"({text})"


def _text(node: ET.Element) -> str:
    tag, children = _local(node.tag), list(node)
    if tag in ("mi", "mn", "mtext", "ms"):
        return "".join(node.itertext())
    if tag == "mo":
        operator = "".join(node.itertext()).strip(INVISIBLE)
        return f" {operator} " if operator in SPACED else operator
    if tag == "mspace":
        return " "
    parts = [_text(child) for child in children]
    if tag == "msub" and len(parts) == 2:
        return parts[0] + _script(parts[1].strip(), SUBSCRIPTS, "_")
    if tag == "msup" and len(parts) == 2:
        return parts[0] + _script(parts[1].strip(), SUPERSCRIPTS, "^")
    if tag == "msubsup" and len(parts) == 3:
        return parts[0] + _script(parts[1].strip(), SUBSCRIPTS, "_") + _script(parts[2].strip(), SUPERSCRIPTS, "^")
    if tag in ("munder", "mover", "munderover"):
        return parts[0] + "".join(f"[{part.strip()}]" for part in parts[1:] if part.strip())
    if tag == "msqrt":
        return "√" + _grouped("".join(parts).strip())
    if tag == "mroot" and len(parts) == 2:
        return _script(parts[1].strip(), SUPERSCRIPTS, "") + "√" + _grouped(parts[0].strip())
    if tag == "mfrac" and len(parts) == 2:
        return f"{_grouped(parts[0].strip())}/{_grouped(parts[1].strip())}"
    if tag == "mtable":
        return "; ".join(parts)
    if tag == "mtr":
        return ", ".join(part.strip() for part in parts)
    if tag == "annotation":
        return ""
    return "".join(parts)


def plain_text(mathml: str) -> str:
    """The formula of a ``<math>`` element as one line of text.

    >>> plain_text('<math><msqrt><msub><mi>d</mi><mi>k</mi></msub></msqrt></math>')
    '√dₖ'
    >>> plain_text('<math><mi>Q</mi><msup><mi>K</mi><mi>T</mi></msup><mo>=</mo><mn>2</mn></math>')
    'QKᵀ = 2'
    """
    root = ET.fromstring(mathml.replace("&nbsp;", "\u00a0"))
    return re.sub(r"\s+", " ", _text(root)).strip()
