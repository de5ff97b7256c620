"""Input checks that several qkv modules share, so that each mistake is reported in the same words.

The rule (see the package docstring): a TypeError when an argument is the wrong kind of thing
(a str array, a float block size, an int mask), a ValueError when it is the right kind with a
wrong value (a shape, a NaN, a scale of 0).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np

from qkv._float16 import float16_is_inf_or_nan

# dtype kinds we accept as numbers: bool, signed int, unsigned int, float.
_NUMERIC_KINDS = "biuf"
_FLOATS = (np.float16, np.float32, np.float64, np.longdouble)
_BFLOAT16 = "{name} is bfloat16, which qkv does not support (numpy has no bfloat16); convert it to float32 first"


def as_float_array(value: Any, name: str) -> np.ndarray:
    """`value` as a float array: float inputs keep their dtype, bools/ints (and lists of them) become float64."""
    if type(value) is np.ndarray and value.dtype.type in _FLOATS:  # the common case, at once
        return value
    if isinstance(value, np.ma.MaskedArray):
        # np.asarray would silently drop the mask and use the hidden entries as data.
        raise TypeError(
            f"{name} is a numpy.ma.MaskedArray, whose mask qkv would ignore; pass {name}.filled(...) "
            "(and a boolean mask= for attention) instead"
        )
    try:
        array = np.asarray(value)
    except ValueError as error:  # ragged nested lists
        raise ValueError(f"{name} is not a rectangular array: {error}") from None
    except (RuntimeError, TypeError) as error:  # e.g. a torch tensor that requires grad, or is bfloat16
        if "bfloat16" in str(error).lower():
            raise TypeError(_BFLOAT16.format(name=name)) from None
        raise TypeError(f"{name} cannot be read as a numpy array ({error}); pass {name}.detach() for a tensor that "
                        "requires grad") from None
    if array.dtype.name == "bfloat16":
        raise TypeError(_BFLOAT16.format(name=name))
    if array.dtype.kind not in _NUMERIC_KINDS:
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    if array.dtype.kind != "f":
        array = array.astype(np.float64)
    return array


def check_finite(array: np.ndarray, name: str) -> None:
    """Reject NaN/inf up front: one NaN would silently turn a whole softmax row into NaN."""
    bad = float16_is_inf_or_nan(array) if array.dtype == np.float16 else ~np.isfinite(array)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name} contains NaN or inf (first at index {index}, value {array[index]})")


def check_not_empty(array: np.ndarray, name: str) -> None:
    if 0 in array.shape:
        raise ValueError(f"{name} has an empty dimension: shape {array.shape}")


def as_matrices(layout: str = "(..., n, d)", **named: Any) -> list[np.ndarray]:
    """Convert each named input to a finite float array with >= 2 dims, all in numpy's common float dtype.

    `layout` only words the error message (e.g. "(..., n_q, d_k)"). Empty dimensions are the
    caller's to judge: attention accepts an empty batch, a projection does not.
    """
    return float_matrices(layout, named, finite=True)


def float_matrices(layout: str, named: dict[str, Any], finite: bool) -> list[np.ndarray]:
    """`as_matrices`; with ``finite=False`` NaN and inf are left for the caller to find (attention finds them
    in the same pass as the other sizes it needs, qkv/_magnitudes.py)."""
    arrays = [as_float_array(value, name) for name, value in named.items()]
    for array, name in zip(arrays, named, strict=True):
        if array.ndim < 2:
            raise ValueError(f"{name} must have at least 2 dimensions {layout}, got shape {array.shape}")
        if finite:
            check_finite(array, name)
    dtype = np.result_type(*arrays)  # float32 + float32 stays float32, + float64 widens
    return [array.astype(dtype, copy=False) for array in arrays]


def broadcast_batch_shape(**named: np.ndarray) -> tuple[int, ...]:
    """The broadcast of the leading (batch/head) dimensions, i.e. everything but the last two axes."""
    batches = {array.shape[:-2] for array in named.values()}
    if len(batches) == 1:  # all the same (the common case): nothing to broadcast
        return batches.pop()
    return broadcast_batches({name: array.shape[:-2] for name, array in named.items()},
                             {name: array.shape for name, array in named.items()})


def broadcast_batches(batches: dict[str, tuple[int, ...]], shapes: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
    """The broadcast of named batch shapes; when they do not broadcast, an error naming the arrays' `shapes`."""
    distinct = set(batches.values())
    if len(distinct) == 1:  # all the same (the common case): nothing to broadcast
        return distinct.pop()
    try:
        return np.broadcast_shapes(*distinct)
    except ValueError:
        shown = ", ".join(f"{name}.shape={shape}" for name, shape in shapes.items())
        raise ValueError(f"the leading (batch) dimensions do not broadcast: {shown}") from None


def check_same_d_k(q: np.ndarray, k: np.ndarray, q_name: str = "q", k_name: str = "k") -> None:
    """Q·Kᵀ needs queries and keys of the same width d_k."""
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"{q_name} has d_k={q.shape[-1]} but {k_name} has d_k={k.shape[-1]} "
            f"({q_name}.shape={q.shape}, {k_name}.shape={k.shape})"
        )


def check_scale(scale: Any) -> float:
    """A plain Python float, so that it never changes the dtype of float32/float16 arrays."""
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, numbers.Real):
        raise TypeError(f"scale must be a real number, got {scale!r}")
    value = float(scale)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"scale must be finite and > 0, got {value}")
    return value


def check_int(value: Any, name: str, minimum: int = 1) -> int:
    """Sizes and counts: an int (numpy ints welcome; bools, 3.0 and "3" are TypeErrors) of at least `minimum`."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        kind = "positive" if minimum == 1 else "non-negative"
        raise TypeError(f"{name} must be a {kind} int, got {value!r} of type {type(value).__name__}")
    if value < minimum:
        kind = "positive" if minimum == 1 else "non-negative"
        raise ValueError(f"{name} must be a {kind} int, got {value!r}")
    return int(value)


def check_sequence(values: Any, name: str, of_what: str) -> None:
    """A sequence (not a str, whose characters would be taken one by one, nor a lone number)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a sequence of {of_what}, got {values!r} of type {type(values).__name__}")


def check_int_sequence(values: Any, name: str) -> list[int]:
    """A non-empty sequence of positive ints, such as the d_k values of a study; 5 or "5" are TypeErrors."""
    check_sequence(values, name, "positive ints")
    ints = [check_positive_int(value, f"{name} entry") for value in values]
    if not ints:
        raise ValueError(f"{name} is empty")
    return ints


def check_positive_int(value: Any, name: str) -> int:
    """A positive int: TypeError for 2.5, True or "3"; ValueError for 0 or -3."""
    return check_int(value, name, minimum=1)


def check_flag(value: Any, name: str) -> bool:
    """True or False (numpy's bool too); 1, "yes" or None are TypeErrors."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


_PIECE = 1 << 16  # numbers checked at a time: the check's temporaries stay this small whatever the array's size


def check_computed_finite(array: np.ndarray, what: str) -> None:
    """Finite inputs can still overflow (e.g. float32 above 3.4e38); fail loudly instead of returning inf/NaN.
    A contiguous array is looked at a piece at a time."""
    half = array.dtype == np.float16  # numpy's isfinite is slow on float16
    if array.flags.c_contiguous:
        flat = array.reshape(-1)  # a view
        pieces: Iterable[np.ndarray] = (flat[start:start + _PIECE] for start in range(0, flat.size, _PIECE))
    else:
        pieces = (array,)  # a strided array whole
    for piece in pieces:
        if float16_is_inf_or_nan(piece).any() if half else not np.isfinite(piece).all():
            raise ValueError(
                f"{what} overflowed to inf/NaN in {array.dtype}; the inputs are too large for this dtype"
            )
