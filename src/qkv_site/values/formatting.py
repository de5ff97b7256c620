"""Write numbers and numpy arrays as the LaTeX and Markdown the pages show.

A printed number must not depend on the last bits of a float, which differ between machines: each
function first decides up to rounding (`qkv_site.values.claims.noise`) whether a number is an
integer, and refuses to print a number that lies within rounding of the boundary between two printed
forms (0.125 to two decimals, 0.645 as a percent), where one machine would print one digit and another
the next.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from qkv_site.values.claims import GUARD, TooCloseToCall, noise


def printable(x: float, decimals: int) -> float:
    """`x`, after checking that rounding it to `decimals` decimals gives the same digits on every machine.

    >>> printable(0.6404, 2)
    0.6404
    >>> printable(0.125 + 1e-17, 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qkv_site.values.claims.TooCloseToCall: 0.125 lies within rounding of the boundary between two printed forms at 2 decimals ...
    """
    value = float(x)
    if not math.isfinite(value):
        raise ValueError(f"cannot print {value} as a number of the page")
    shifted = abs(value) * 10.0**decimals
    from_boundary = abs(shifted - math.floor(shifted) - 0.5)  # 0 on a tie such as 0.125 at two decimals
    if from_boundary <= GUARD * noise(shifted):
        raise TooCloseToCall(f"{value!r} lies within rounding of the boundary between two printed forms at {decimals} decimals "
                             f"({from_boundary:.3g} units of the last printed digit away): another machine may print the other")
    return value


def significant(x: float, digits: int) -> float:
    """`x` rounded to `digits` significant digits, checked to round the same way on every machine.

    >>> significant(0.123456789012, 6), significant(3.3e-12, 6)
    (0.123457, 3.3e-12)
    >>> significant(0.1234565 + 1e-18, 6)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qkv_site.values.claims.TooCloseToCall: 0.1234565 lies within rounding of the boundary between two forms ...
    """
    value = float(x)
    if not math.isfinite(value):
        raise ValueError(f"cannot round {value} to significant digits")
    text = f"{value:.{digits}g}"
    wobble = GUARD * noise(value)
    if {f"{value - wobble:.{digits}g}", f"{value + wobble:.{digits}g}"} != {text}:
        raise TooCloseToCall(f"{value!r} lies within rounding of the boundary between two forms at {digits} significant "
                             f"digits: another machine may round it the other way")
    return float(text)


def is_integral(x: float) -> bool:
    """Whether `x` is an integer up to rounding (1 − 1e-16 is; 0.9996 is not).

    >>> is_integral(1 - 1e-16), is_integral(0.9996), is_integral(-2.0)
    (True, False, True)
    """
    value = float(x)
    return abs(value - round(value)) <= noise(value)


def number(x: float, decimals: int = 2) -> str:
    """A number as the article writes it: integers (up to rounding) bare, everything else rounded.

    >>> number(2.0), number(1.1547), number(-1), number(1 - 1e-16), number(0.9996)
    ('2', '1.15', '-1', '1', '1.00')
    """
    value = float(x)
    if is_integral(value):
        return str(round(value))
    text = f"{printable(value, decimals):.{decimals}f}"
    return "0" if set(text) <= set("-0.") else text  # -0.001 is "0", not "-0.00"


def fixed(x: float, decimals: int) -> str:
    """A number with exactly `decimals` decimals, checked to print the same on every machine.

    >>> fixed(0.99546, 2), fixed(1.0, 2)
    ('1.00', '1.00')
    """
    return f"{printable(x, decimals):.{decimals}f}"


def factor(x: float, decimals: int = 2) -> str:
    """A number written as a factor of a product: negative numbers in parentheses.

    >>> factor(-1), factor(2)
    ('(-1)', '2')
    """
    text = number(x, decimals)
    return f"({text})" if text.startswith("-") else text


def percent(x: float) -> str:
    """A weight as a whole percentage.

    >>> percent(0.6404)
    '64%'
    """
    return f"{printable(float(x) * 100, 0):.0f}%"


def vector(values: ArrayLike, decimals: int = 2) -> str:
    """A 1-D array as an inline row vector ``[a, b, c]``.

    >>> vector([1.0, 0.0, 1.0, 0.0])
    '[1, 0, 1, 0]'
    """
    row = np.asarray(values, dtype=float)
    if row.ndim != 1:
        raise ValueError(f"vector() takes a 1-D array, got shape {row.shape}")
    return "[" + ", ".join(number(x, decimals) for x in row) + "]"


def bmatrix(values: ArrayLike, decimals: int = 2) -> str:
    r"""A 1-D or 2-D array as a LaTeX ``bmatrix``.

    >>> bmatrix([[1, 0], [2, 3]])
    '\\begin{bmatrix} 1 & 0 \\\\ 2 & 3 \\end{bmatrix}'
    >>> bmatrix([[0.6404, 0.3596]])
    '\\begin{bmatrix} 0.64 & 0.36 \\end{bmatrix}'
    """
    table = np.asarray(values, dtype=float)
    if table.ndim == 1:
        table = table[None, :]
    if table.ndim != 2 or table.size == 0:
        raise ValueError(f"bmatrix() takes a non-empty 1-D or 2-D array, got shape {table.shape}")
    rows = [" & ".join(number(x, decimals) for x in row) for row in table]
    return r"\begin{bmatrix} " + r" \\ ".join(rows) + r" \end{bmatrix}"


def display(*parts: str) -> str:
    """A display formula for arithmatex, on its own paragraph.

    >>> display("x = 1")
    '\\n$$x = 1$$\\n'
    """
    return "\n$$" + " ".join(parts) + "$$\n"


def markdown_table(header: list[str], rows: list[list[str]], align: str | None = None) -> str:
    """A Markdown table; ``align`` is one letter per column (``l``, ``c``, ``r``).

    >>> print(markdown_table(["n", "bytes"], [["512", "0.5 MiB"]], align="rr"))
    | n | bytes |
    | ---: | ---: |
    | 512 | 0.5 MiB |
    """
    if any(len(row) != len(header) for row in rows):
        raise ValueError(f"every row needs {len(header)} cells: {rows}")
    marks = {"l": ":---", "c": ":---:", "r": "---:"}
    rule = [marks[a] for a in align] if align else ["---"] * len(header)
    lines = [header, rule, *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)
