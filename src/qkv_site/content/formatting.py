"""Write numbers and numpy arrays as the LaTeX and Markdown the pages show."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def number(x: float, decimals: int = 2) -> str:
    """A number as the article writes it: integers bare, everything else rounded.

    >>> number(2.0), number(1.1547), number(-1)
    ('2', '1.15', '-1')
    """
    value = float(x)
    if value == round(value):
        return str(round(value))
    text = f"{value:.{decimals}f}"
    return "0" if float(text) == 0 else text


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
    return f"{float(x):.0%}"


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
