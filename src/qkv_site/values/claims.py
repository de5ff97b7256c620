"""Sentences about computed or measured numbers that check themselves when the site is built.

A page that says "tiled attention was slower at every n" or "the peak is about one n×n matrix" checks
it with `Claims(page).require(...)`: the condition that makes the sentence true is computed from the
same data the sentence describes. When the data stop supporting it, `require` raises `ClaimError`
naming the page and the sentence, which stops ``mkdocs build --strict``; `decide` turns a condition
into the flag that chooses between two true sentences. A condition on computed
floats is written with `equal`, `greater`, `less`, `at_least`, `at_most` or `largest`, never with
``==`` or ``>`` on the floats themselves: the same computation rounds differently on another CPU, BLAS
kernel or thread count (a glibc `exp` and an AVX-512 `exp` can differ in the last bit), so the
comparisons decide up to rounding. Two numbers within `noise` of each other are equal; an order
needs a gap larger than `GUARD` times the noise; a gap in between is too close to call, and
`require` stops the build saying so (`TooCloseToCall`) rather than let the machine pick the sentence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike


class ClaimError(AssertionError):
    """A sentence of a page that the data it describes no longer support."""


class TooCloseToCall(ClaimError):
    """A comparison whose two sides are closer than rounding lets a machine tell apart in the same way everywhere."""


# The rounding a page's numbers may carry, in units of the last place (eps × magnitude of the numbers they are
# computed from). The pages' computations are a few dozen float64 operations on numbers of order 1: measured
# across OpenBLAS kernels, numpy's SIMD levels and ±2-ulp moves of exp, log and matmul, they move by at most a
# few ulps. 64 ulps leave a wide margin above that and are still far below anything a page prints.
NOISE_ULPS = 64
GUARD = 16  # an order needs a gap above GUARD × noise; a gap between noise and that is too close to call


def noise(scale: float, dtype: Dtype = np.float64) -> float:
    """How far rounding can move a number computed from numbers of magnitude `scale` in `dtype`.

    >>> round(noise(1.0) / np.finfo(np.float64).eps), f"{noise(1.0):.1e}"
    (64, '1.4e-14')
    """
    return NOISE_ULPS * float(np.finfo(dtype).eps) * abs(float(scale))


@dataclass(frozen=True)
class Comparison:
    """`left op right`, decided up to rounding: `holds` is True, False, or None when too close to call.

    Its truth is `holds`; asking the truth of an undecided comparison raises `TooCloseToCall`, so an
    ``if`` can never let rounding choose a branch.
    """

    holds: bool | None
    text: str

    def __bool__(self) -> bool:
        if self.holds is None:
            raise TooCloseToCall(f"too close to call: {self.text}")
        return self.holds


Dtype = type[np.floating] | np.dtype  # the dtype a number was computed in: its eps sets the rounding noise


def _gaps(left: ArrayLike, right: ArrayLike, scale: float | None, dtype: Dtype) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(left, dtype=float), np.asarray(right, dtype=float)
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError(f"a claim compares finite numbers, got {a!r} and {b!r}")
    magnitude = np.maximum(np.abs(a), np.abs(b)) if scale is None else np.full(np.broadcast(a, b).shape, abs(float(scale)))
    return a - b, NOISE_ULPS * float(np.finfo(dtype).eps) * magnitude


def _compare(op: str, left: ArrayLike, right: ArrayLike, scale: float | None,
             dtype: Dtype) -> Comparison:
    gap, tolerance = _gaps(left, right, scale, dtype)
    same = np.abs(gap) <= tolerance  # equal to rounding
    apart = np.abs(gap) > GUARD * tolerance  # ordered beyond doubt
    truth = {"==": same, ">": apart & (gap > 0), "<": apart & (gap < 0),
             ">=": same | (apart & (gap > 0)), "<=": same | (apart & (gap < 0))}[op]
    decided = same | apart
    if np.any(decided & ~truth):  # one element clearly fails: the whole claim is false, whatever the others
        holds: bool | None = False
    elif np.all(decided):
        holds = True
    else:
        holds = None
    worst = float(np.max(np.abs(gap) / np.maximum(tolerance, np.finfo(float).tiny)))
    return Comparison(holds, f"{_short(left)} {op} {_short(right)} (gap {worst:.3g} × the rounding noise)")


def _short(value: ArrayLike) -> str:
    array = np.asarray(value, dtype=float)
    return f"{float(array):.17g}" if array.ndim == 0 else f"array of shape {array.shape}"


def equal(left: ArrayLike, right: ArrayLike, *, scale: float | None = None,
          dtype: Dtype = np.float64) -> Comparison:
    """`left` equals `right` up to rounding (every element, for arrays).

    `scale` is the magnitude of the numbers both were computed from (default: their own), which
    matters when a difference is compared with 0: a gap of 1e-17 between two weights near 0.6 is rounding.

    >>> bool(equal(0.1 + 0.2, 0.3)), bool(equal(7.85e-17, 0.0, scale=1.0)), bool(equal(0.3, 0.31))
    (True, True, False)
    """
    return _compare("==", left, right, scale, dtype)


def greater(left: ArrayLike, right: ArrayLike, *, scale: float | None = None,
            dtype: Dtype = np.float64) -> Comparison:
    """`left` > `right` by more than rounding (two numbers equal to rounding are not ordered).

    >>> bool(greater(0.64, 0.36)), bool(greater(0.3, 0.1 + 0.2))
    (True, False)
    >>> bool(greater(1.0 + 1e-13, 1.0))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qkv_site.values.claims.TooCloseToCall: too close to call: 1.0000000000000999 > 1 (gap 7... × the rounding noise)
    """
    return _compare(">", left, right, scale, dtype)


def less(left: ArrayLike, right: ArrayLike, *, scale: float | None = None,
         dtype: Dtype = np.float64) -> Comparison:
    """`left` < `right` by more than rounding.

    >>> bool(less([0.1, 0.2], 0.5))
    True
    """
    return _compare("<", left, right, scale, dtype)


def at_least(left: ArrayLike, right: ArrayLike, *, scale: float | None = None,
             dtype: Dtype = np.float64) -> Comparison:
    """`left` ≥ `right`: greater by more than rounding, or equal to rounding.

    >>> bool(at_least(0.1 + 0.2, 0.3)), bool(at_least(0.2, 0.3))
    (True, False)
    """
    return _compare(">=", left, right, scale, dtype)


def at_most(left: ArrayLike, right: ArrayLike, *, scale: float | None = None,
            dtype: Dtype = np.float64) -> Comparison:
    """`left` ≤ `right`: less by more than rounding, or equal to rounding.

    >>> bool(at_most(0.75, 0.75)), bool(at_most(0.8, 0.75))
    (True, False)
    """
    return _compare("<=", left, right, scale, dtype)


def largest(values: ArrayLike, *, scale: float | None = None, dtype: Dtype = np.float64) -> int:
    """The index of the largest of `values`, which must beat the runner-up by more than rounding.

    A page that names "the word with the largest weight" names the same word on every machine, or
    stops with `TooCloseToCall`.

    >>> largest([0.2, 0.5, 0.3])
    1
    >>> largest([0.5, 0.2, 0.5])
    Traceback (most recent call last):
    ...
    qkv_site.values.claims.TooCloseToCall: too close to call: the largest of 3 values, 0.5 at 0 and 0.5 at 2
    """
    row = np.asarray(values, dtype=float)
    if row.ndim != 1 or row.size == 0:
        raise ValueError(f"largest() takes a non-empty 1-D array, got shape {row.shape}")
    order = np.argsort(-row, kind="stable")
    top = int(order[0])
    if row.size > 1:
        second = int(order[1])
        if not _compare(">", row[top], row[second], scale, dtype).holds:
            raise TooCloseToCall(f"too close to call: the largest of {row.size} values, {row[top]:.17g} at {top} "
                                 f"and {row[second]:.17g} at {second}")
    return top


def largest_ties(values: ArrayLike, *, scale: float | None = None,
                 dtype: Dtype = np.float64) -> list[int]:
    """The indices of every value equal to the largest up to rounding; the rest must be clearly smaller.

    >>> largest_ties([0.5, 0.2, 0.5 - 1e-17]), largest_ties([0.2, 0.8])
    ([0, 2], [1])
    """
    row = np.asarray(values, dtype=float)
    if row.ndim != 1 or row.size == 0:
        raise ValueError(f"largest_ties() takes a non-empty 1-D array, got shape {row.shape}")
    top = float(row.max())
    gap, tolerance = _gaps(top, row, scale, dtype)
    unclear = (gap > tolerance) & (gap <= GUARD * tolerance)
    if np.any(unclear):
        j = int(np.flatnonzero(unclear)[0])
        raise TooCloseToCall(f"too close to call: whether {row[j]:.17g} at {j} ties with the largest, {top:.17g}")
    return [int(j) for j in np.flatnonzero(gap <= tolerance)]


class Claims:
    """The checks of one page's sentences: `require` stops the build, naming the page and the sentence.

    >>> claims = Claims("example.md")
    >>> claims.require(greater(0.64, 0.36), 2 > 1, sentence="I gives cats more")
    >>> claims.require(equal(0.5, 0.5 + 1e-13), sentence="both rows split alike")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qkv_site.values.claims.TooCloseToCall: example.md: too close to call for the sentence: both rows split alike; ...
    """

    def __init__(self, page: str) -> None:
        self.page = page

    def require(self, *conditions: bool | np.bool_ | Comparison, sentence: str, checked: str = "") -> None:
        """Every condition must hold; a comparison too close to call stops the build as such."""
        for condition in conditions:
            if isinstance(condition, Comparison) and condition.holds is None:
                raise TooCloseToCall(f"{self.page}: too close to call for the sentence: {sentence}; {condition.text}")
        for condition in conditions:
            holds = condition.holds if isinstance(condition, Comparison) else claim_holds(condition, self.page, sentence)
            if not holds:
                detail = f"; checked: {checked}" if checked else ""
                raise ClaimError(f"{self.page}: the data no longer support the sentence: {sentence}{detail}")

    def decide(self, condition: bool | np.bool_ | Comparison, *, sentence: str) -> bool:
        """A flag that chooses between sentences: True or False beyond rounding, else `TooCloseToCall`.

        >>> Claims("example.md").decide(equal(0.1 + 0.2, 0.3), sentence="the two agree")
        True
        """
        if isinstance(condition, Comparison):
            if condition.holds is None:
                raise TooCloseToCall(f"{self.page}: too close to call for the sentence: {sentence}; {condition.text}")
            return condition.holds
        return claim_holds(condition, self.page, sentence)


def claim_holds(holds: object, page: str, en: str) -> bool:
    """`holds` as a bool; anything but a bool (a list, an array, a number) is a mistake in the page's code."""
    if not isinstance(holds, (bool, np.bool_)):  # an array's or a list's truth is not the condition meant
        raise TypeError(f"{page}: the condition of “{en}” must be a bool, not {type(holds).__name__}")
    return bool(holds)
