"""How large an attention call's inputs are, found in one pass over each, a cache-sized piece at a time.

The checks before a call (no NaN or inf; v not near the dtype's maximum) and `attention_output`'s choice
of path (the longest query and key bound every score; v's largest and smallest entries) each need a
reduction over q, k and v. Made one after another over whole arrays, they read k and v from memory
several times: at decode, one query against 32,768 cached keys, that took several times as long as the
attention itself. Here each piece of 2¹⁶ numbers is read from memory once, and every reduction runs on
it while it is in the cache.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from qkv._float16 import float16_to_float32, widen_if_finite

PIECE = 1 << 16  # numbers per piece: 256 KiB of float32, well inside one core's L2 cache


@dataclass(frozen=True)
class Magnitudes:
    """The sizes of one array's entries and rows (last axis)."""

    largest: float  # max |x|; NaN or inf when the array holds NaN or inf (then the other two mean nothing)
    smallest_nonzero: float  # min |x| over the x that are not 0; inf when every x is 0
    longest_row: float  # max ‖row‖ over the rows along the last axis

    @property
    def finite(self) -> bool:
        return math.isfinite(self.largest)


def magnitudes(array: np.ndarray, smallest: bool = True) -> Magnitudes:
    """`Magnitudes` of a float array (..., d), read once a piece of whole rows at a time (float16 widened to float32
    a piece at a time); with ``smallest=False`` the smallest nonzero |x| is not looked for (it is NaN), which saves
    a pass over each piece.

    >>> magnitudes(np.array([[3.0, -4.0], [0.0, 0.5]]))
    Magnitudes(largest=4.0, smallest_nonzero=0.5, longest_row=5.0)
    >>> magnitudes(np.array([[1.0, np.nan]])).finite
    False
    """
    d = array.shape[-1] if array.ndim else 1
    if array.size == 0 or d == 0:
        return Magnitudes(0.0, math.inf, 0.0)
    half = array.dtype == np.float16  # each piece widened to float32 first, in a buffer of its own
    if not array.flags.c_contiguous:  # a strided array (a broadcast view, a slice): whole, reduction after reduction
        if not half:
            return _piece_magnitudes(array, np.empty((1,), array.dtype), smallest)
        array = np.ascontiguousarray(array)  # float16: a contiguous copy (half the size of widening it), in pieces below
    rows = np.reshape(array, (-1, d))  # a view: no copy
    step = max(1, PIECE // d)
    size = min(len(rows), step) * d
    work_dtype = np.float32 if half else array.dtype
    buffer = np.empty(size, work_dtype)  # |piece|, reused
    widened = np.empty(size, np.float32) if half else buffer
    largest, low, longest = 0.0, math.inf if smallest else math.nan, 0.0
    for start in range(0, len(rows), step):
        piece_rows = rows[start:start + step]
        if half:
            into = widened[: piece_rows.size].reshape(piece_rows.shape)
            if not widen_if_finite(piece_rows, into):
                return Magnitudes(math.nan, math.nan, math.nan)  # inf or NaN: check_finite names which, where
            piece_rows = into
        piece = _piece_magnitudes(piece_rows, buffer, smallest)
        if not piece.finite:
            return piece
        largest, longest = max(largest, piece.largest), max(longest, piece.longest_row)
        low = min(low, piece.smallest_nonzero) if smallest else low
    return Magnitudes(largest, low, longest)


def _piece_magnitudes(rows: np.ndarray, buffer: np.ndarray, smallest: bool) -> Magnitudes:
    """`Magnitudes` of a piece (..., d); `buffer` takes its |x| when it is large enough."""
    top = max(float(rows.max()), -float(rows.min()))  # NaN propagates through max and min; inf shows in one of them
    if not math.isfinite(top):
        return Magnitudes(math.nan if math.isnan(top) else math.inf, math.nan, math.nan)
    if not smallest:
        return Magnitudes(top, math.nan, longest_row(rows, top))
    magnitude = np.abs(rows, out=buffer[: rows.size].reshape(rows.shape)) if buffer.size >= rows.size else np.abs(rows)
    low = float(magnitude.min())
    if low == 0:  # zeros multiply to exact zeros: they do not count
        low = float(np.min(magnitude, where=magnitude > 0, initial=np.inf))
    return Magnitudes(top, low, longest_row(rows, top))


def longest_row(rows: np.ndarray, top: float | None = None) -> float:
    """The length of the longest row (..., d), without a square that over- or underflows; `top` is max |x| if known.

    When the largest entry's square is at least tiny/eps (the dtype's smallest normal number over its
    rounding step) and d of them fit in the dtype, the squares are summed as they are: squares that
    underflow change a sum by less than its rounding. Otherwise the rows are first divided by their
    largest entry.
    """
    if rows.dtype == np.float16:  # its squares would round to float16 (and pass its maximum from 256 on)
        rows = float16_to_float32(rows)
    top = max(float(rows.max()), -float(rows.min())) if top is None else top
    if top == 0 or not math.isfinite(top):
        return top
    info = np.finfo(rows.dtype)
    with np.errstate(under="ignore"):
        if float(info.tiny) / float(info.eps) <= top * top <= float(info.max) / (2 * rows.shape[-1]):
            return math.sqrt(float(np.vecdot(rows, rows).max()))  # (...,): one sum per row
        scaled = rows / top  # entries within [-1, 1], the largest ±1
        return top * math.sqrt(float(np.vecdot(scaled, scaled).max()))
