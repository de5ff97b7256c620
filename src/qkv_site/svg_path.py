"""SVG path data in fewer bytes: the same outline with relative commands (``l3-5`` instead of ``L 84 135``).

A figure's plot lines and the glyph outlines of its formulas, and the outlines of the pages' formulas' glyphs, are written by
matplotlib and MathJax as absolute coordinates. Each point written as the step from the one before is
the same shape in shorter numbers, which repeat more often, so gzip packs them tighter too (a quarter
less for a page's formula glyphs, a fifth for a figure). The arithmetic is decimal and exact: the same
text gives the same bytes on every machine.

    >>> relative_path("M 75 -5 L 91 26 C 87 25 86 25 84 25 z")
    'm75-5 16 31c-4-1-5-1-7-1z'
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_EVEN, Decimal

# The number of coordinates one segment of each command takes (arcs are not written by matplotlib or MathJax).
ARGUMENTS = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "Z": 0}
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_TOKEN = re.compile(r"\s*(?:([A-Za-z])|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?))\s*,?")


class PathError(ValueError):
    """Path data this module cannot read (an arc, a stray character)."""


def _tokens(d: str) -> list[tuple[str, list[Decimal]]]:
    """The commands of ``d`` with their numbers, one segment each (``L 1 2 3 4`` → two ``L``)."""
    segments: list[tuple[str, list[Decimal]]] = []
    position, command = 0, ""
    numbers: list[Decimal] = []
    pending: list[tuple[str, list[Decimal]]] = []
    while position < len(d):
        match = _TOKEN.match(d, position)
        if match is None or match.end() == position:
            if d[position:].strip():
                raise PathError(f"cannot read path data at {d[position:position + 20]!r}")
            break
        position = match.end()
        if match.group(1):
            if command:
                pending.append((command, numbers))
            command, numbers = match.group(1), []
            if command.upper() not in ARGUMENTS:
                raise PathError(f"path command {command!r} is not supported (only {''.join(ARGUMENTS)})")
        else:
            if not command:
                raise PathError(f"path data starts with a number: {d[:20]!r}")
            numbers.append(Decimal(match.group(2)))
    if command:
        pending.append((command, numbers))
    for command, numbers in pending:
        count = ARGUMENTS[command.upper()]
        if count == 0:
            if numbers:
                raise PathError(f"{command} takes no numbers: {d[:40]!r}")
            segments.append((command, []))
            continue
        if not numbers or len(numbers) % count:
            raise PathError(f"{command} needs a multiple of {count} numbers, got {len(numbers)}: {d[:40]!r}")
        for start in range(0, len(numbers), count):
            # after a move, further pairs are lines (SVG's implicit lineto)
            segment = command if start == 0 or command.upper() != "M" else ("L" if command == "M" else "l")
            segments.append((segment, numbers[start:start + count]))
    return segments


def _number(value: Decimal) -> str:
    """``value`` as short as SVG reads it: no trailing zeros, no leading zero (0.5 → .5, -0.5 → -.5)."""
    text = format(value.normalize(), "f") if value else "0"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text.startswith("0."):
        text = text[1:]
    elif text.startswith("-0."):
        text = "-" + text[2:]
    return text


def _joined(numbers: list[str], previous: str) -> str:
    """Numbers written one after another: a space only where the next would run into the one before."""
    out = ""
    for text in numbers:
        before = (out or previous)
        needs_space = bool(before) and before[-1] not in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" and not (
            text.startswith("-") or (text.startswith(".") and "." in re.split(r"[-\s]", before)[-1]))
        out += (" " if needs_space else "") + text
    return out


def relative_path(d: str) -> str:
    """``d`` with every segment relative to the point before it, and each command letter written once
    for a run of the same command. The shape is exactly the same.

    >>> relative_path("M95 178Q89 178 81 186T72 200Z")
    'm95 178q-6 0-14 8t-9 14z'
    >>> relative_path("M 0 0 L 0 3.5")
    'm0 0 0 3.5'
    >>> relative_path("M 1.5 2 L 2 2.5 H 1 V 0.5")
    'm1.5 2 .5.5h-1v-2'
    """
    x = y = start_x = start_y = Decimal(0)
    out, previous = "", ""
    for command, numbers in _tokens(d):
        upper, absolute = command.upper(), command.isupper()
        if upper == "Z":
            out += "z"
            previous = "z"
            x, y = start_x, start_y
            continue
        if upper in "HV":
            value = numbers[0]
            step = value - (x if upper == "H" else y) if absolute else value
            if upper == "H":
                x += step
            else:
                y += step
            steps = [step]
        else:
            steps = []
            for i in range(0, len(numbers), 2):
                px, py = numbers[i], numbers[i + 1]
                steps += [px - x, py - y] if absolute else [px, py]
            end_x, end_y = (numbers[-2], numbers[-1]) if absolute else (x + numbers[-2], y + numbers[-1])
            x, y = end_x, end_y
            if upper == "M":
                start_x, start_y = x, y
        letter = upper.lower()
        # A run of one command needs its letter once; after m the implicit command is l.
        repeat = previous == letter or (previous == "m" and letter == "l")
        written = _joined([_number(step) for step in steps], out if repeat else "")
        out += written if repeat else letter + written
        previous = "l" if letter == "m" else letter
    return out


def on_grid(d: str, step: int) -> str:
    """``d`` with every number rounded to a multiple of ``step`` (halves to even): a coarser outline,
    for coordinates finer than any screen shows.

    >>> on_grid("M95 178Q89 178 81 186T72 200.5Z", 5)
    'M95 180Q90 180 80 185T70 200Z'
    """
    unit = Decimal(step)

    def rounded(number: re.Match[str]) -> str:
        return str((Decimal(number.group()) / unit).quantize(Decimal(1), rounding=ROUND_HALF_EVEN) * unit + 0)

    return _NUMBER.sub(rounded, d)


def in_steps(d: str, step: int) -> str:
    """``d`` on the grid of ``step`` (`on_grid`), each number counted in steps: the outline drawn at
    ``scale(step)`` is `on_grid`'s, in numbers a digit shorter (paths of lines and curves, no arcs).

    >>> in_steps("M95 178Q89 178 81 186T72 200.5Z", 5)
    'M19 36Q18 36 16 37T14 40Z'
    """
    unit = Decimal(step)

    def counted(number: re.Match[str]) -> str:
        return str((Decimal(number.group()) / unit).quantize(Decimal(1), rounding=ROUND_HALF_EVEN) + 0)

    return _NUMBER.sub(counted, d)
