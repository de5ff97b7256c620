"""Rounding attention weights to float16 with a few whole-array operations: numpy's own cast is slow on them."""

from __future__ import annotations

import numpy as np

# numpy converts float32 -> float16 one element at a time, and takes about 100 ns for each result
# that is subnormal in float16 (below 2⁻¹⁴ ≈ 6.1e-5): about a fifth of the weights over 4,096 keys
# for standard-normal inputs (1% over 1,024); the share grows with n and with how flat the rows are.
_EXPONENT_BITS = np.uint32(0x7F800000)
_TIMES_2_TO_13 = np.uint32(13 << 23)  # added to a float32's bits: the number times 2¹³
_HALF_BITS = np.uint32(0x3F000000)  # the float32 bits of 0.5 = 2⁻²⁴ · 2²³
_REBIAS = np.uint32(126 << 10)


def weights_to_float16(weights: np.ndarray, out: np.ndarray) -> None:
    """out[...] = weights rounded to float16, for float32 weights in [+0, 1]; bit for bit numpy's cast.

    A weight w in [2ᴱ, 2ᴱ⁺¹) is added, in float32, to magic = 2ᴱ⁺¹³. The sum has steps of
    2ᴱ⁻¹⁰, exactly float16's steps for w: the addition rounds w to float16 (to nearest, ties
    to even), and the sum's bits are magic's bits plus the number of steps, 1024 + the 10-bit
    mantissa. Below float16's smallest normal number 2⁻¹⁴, magic is raised to 0.5, whose steps of
    2⁻²⁴ are float16's subnormal steps, and the count is the float16's bits.

    What remains is float16's exponent field. The sum's bits shifted down by 13 are
    (E + 140)·2¹⁰ (the count is below 2¹³), and (E + 140 - 126)·2¹⁰ + 1024 + mantissa =
    (E + 15)·2¹⁰ + mantissa are the float16's bits; for subnormals the added term is
    (126 - 126)·2¹⁰ = 0. Working modulo 2¹⁶ (the final cast keeps the low 16 bits), magic's
    own bits, all above bit 22, drop out. A rounding that carries into the next power of two
    lands on the right bits by itself.

    >>> w = np.array([1.0, 0.64, 0.36, 1e-5, 0.0], dtype=np.float32)
    >>> out = np.empty(5, dtype=np.float16)
    >>> weights_to_float16(w, out)
    >>> out
    array([1.0e+00, 6.4e-01, 3.6e-01, 1.0e-05, 0.0e+00], dtype=float16)
    >>> bool((out == w.astype(np.float16)).all())
    True
    """
    magic = weights.view(np.uint32) & _EXPONENT_BITS  # the bits of 2ᴱ, shape of weights
    magic += _TIMES_2_TO_13
    np.maximum(magic, np.full(weights.shape[-1:], _HALF_BITS), out=magic)  # (a row: numpy's maximum is slow with a scalar)
    total = (weights + magic.view(np.float32)).view(np.uint32)  # rounds w to float16's steps
    exponent = total >> 13  # (E + 140) · 2¹⁰ (126 · 2¹⁰ for subnormals); the step count is < 2¹³
    total += exponent
    total -= _REBIAS
    np.copyto(out.view(np.uint16), total, casting="unsafe")  # keeps the low 16 bits: the float16


_KEEP_SIGN_AND_BITS_0_TO_27 = np.uint32(0x8FFFFFFF)
_TWO_TO_112 = np.float32(2.0**112)  # 2^(127 - 15): from float16's exponent bias to float32's
_EXPONENT_16 = np.uint16(0x7C00)  # float16's five exponent bits: all set for inf and NaN


def float16_to_float32(array: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """A finite float16 array widened to float32, exactly (into `out`, of its shape, if given); faster than
    numpy's cast, which converts one number at a time (about 4× for the 524,288 numbers of k at decode,
    (1, 8, 1024, 64), here).

    A float16's bits read as a signed 16-bit integer and widened to 32 bits copy the sign bit into bits 15
    to 31; shifted up by 13, the sign fills bits 28 to 31 and float16's 15 bits of exponent and mantissa
    lie in bits 13 to 27. With bits 28 to 30 cleared that is the float32 with the same sign and mantissa
    and an exponent 112 too small (float16 subnormals land on float32 subnormals); multiplying by 2¹¹² is
    exact and fixes both. Four passes: the widening copy, the shift, the mask, the product.

    >>> x = np.array([[1.0, -0.5], [65504.0, -6e-8]], dtype=np.float16)
    >>> y = float16_to_float32(x)
    >>> y.dtype, bool((y == x.astype(np.float32)).all())
    (dtype('float32'), True)
    """
    widened = np.empty(array.shape, np.float32) if out is None else out
    np.copyto(widened.view(np.int32), array.view(np.int16))  # the sign copied into bits 15 to 31
    bits = widened.view(np.uint32)
    bits <<= 13
    bits &= _KEEP_SIGN_AND_BITS_0_TO_27
    widened *= _TWO_TO_112
    return widened


def in_work_dtype(block: np.ndarray, buffer: np.ndarray) -> np.ndarray:
    """A block of an attention call's (checked, finite) inputs in the dtype its arithmetic runs in: a float16
    block widened to float32 in the front of `buffer` (contiguous float32, at least block.size numbers), shaped as the
    block; a block of any other dtype as it is, no copy.

    >>> buffer = np.empty(8, np.float32)
    >>> in_work_dtype(np.array([[0.5, -2.0]], np.float16), buffer)
    array([[ 0.5, -2. ]], dtype=float32)
    >>> block = np.ones((2, 2)); in_work_dtype(block, buffer) is block
    True
    """
    if block.dtype != np.float16:
        return block
    return float16_to_float32(block, buffer.reshape(-1)[: block.size].reshape(block.shape))


def widen_if_finite(array: np.ndarray, out: np.ndarray) -> bool:
    """out[...] = a float16 array widened to float32, exactly, as `float16_to_float32` does; False (and `out` not
    filled) when the array holds inf or NaN, found before it is widened by two passes over its bits (half the
    bytes of the widened array): their exponent bits, and the largest of those.

    >>> out = np.empty(2, np.float32)
    >>> widen_if_finite(np.array([-2.5, 65504.0], np.float16), out), out
    (True, array([-2.5000e+00,  6.5504e+04], dtype=float32))
    >>> widen_if_finite(np.array([1.0, np.inf], np.float16), out)
    False
    """
    if (array.view(np.uint16) & _EXPONENT_16).max(initial=0) == _EXPONENT_16:  # all five exponent bits set somewhere
        return False
    float16_to_float32(array, out)
    return True


def float16_is_inf_or_nan(array: np.ndarray) -> np.ndarray:
    """Where a float16 array holds inf or NaN (all five exponent bits set); numpy's isfinite is slow on float16.

    >>> float16_is_inf_or_nan(np.array([1.0, np.inf, -np.nan, 65504.0], dtype=np.float16))
    array([False,  True,  True, False])
    """
    is_bad: np.ndarray = (array.view(np.uint16) & 0x7C00) == 0x7C00
    return is_bad
