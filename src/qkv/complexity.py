"""Cost of attention: multiplications per step, and the memory of the n×n weight matrix."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from qkv._checks import check_int, check_positive_int, check_sequence

# numpy has no bfloat16; like float16 it takes 2 bytes per element.
_DTYPE_ALIASES = {"fp16": "float16", "half": "float16", "bf16": "float16", "bfloat16": "float16", "fp32": "float32"}


def step_multiplications(n: int, d: int) -> dict[str, int]:
    """Multiplications (exp counted as one) of each of the five steps, for n tokens of width d.

    >>> step_multiplications(4, 2)
    {'projections': 48, 'scores': 32, 'scale': 16, 'softmax': 16, 'weighted_sum': 32}
    """
    n, d = check_positive_int(n, "n"), check_positive_int(d, "d")
    return {
        "projections": 3 * n * d * d,  # X(n×d)·W(d×d), for Q, K and V
        "scores": n * n * d,  # Q(n×d)·Kᵀ(d×n): the n² bottleneck
        "scale": n * n,  # one multiplication by 1/√d per score
        "softmax": n * n,  # one exp per score
        "weighted_sum": n * n * d,  # A(n×n)·V(n×d)
    }


def total_multiplications(n: int, d: int) -> int:
    """Sum of `step_multiplications`: 3nd² + 2n²d + 2n², i.e. O(n²·d) once n > d.

    >>> total_multiplications(4, 2)
    144
    """
    return sum(step_multiplications(n, d).values())


def crossover_length(d: int) -> int:
    """The shortest sequence for which steps 2 to 5 cost more multiplications than step 1.

    Step 1 (the projections) costs 3·n·d²; steps 2 to 5 cost 2·n²·d + 2·n². The second
    overtakes the first once n > 3d² / (2d + 2), about 1.5·d: below that length the
    projections, O(n·d²), dominate, above it the n² terms do.

    >>> crossover_length(512)
    767
    >>> counts = step_multiplications(767, 512)
    >>> counts["projections"] < sum(counts.values()) - counts["projections"]
    True
    """
    d = check_positive_int(d, "d")
    return 3 * d * d // (2 * d + 2) + 1


def attention_matrix_elements(n: int, heads: int = 1, layers: int = 1) -> int:
    """Entries of the attention matrices: n² per head per layer.

    >>> attention_matrix_elements(512)
    262144
    """
    n = check_positive_int(n, "n")
    return n * n * check_positive_int(heads, "heads") * check_positive_int(layers, "layers")


def bytes_per_element(dtype: Any) -> int:
    """Bytes per element of `dtype`: a numpy dtype or a name, with "fp16", "half", "bf16", "fp32" accepted.

    Shared by every memory count of qkv (`attention_matrix_bytes`, `qkv.kv_cache.kv_cache_bytes`).

    >>> bytes_per_element("float16"), bytes_per_element("bf16"), bytes_per_element("fp32"), bytes_per_element("float64")
    (2, 2, 4, 8)
    """
    if not isinstance(dtype, (str, np.dtype, type)):
        raise TypeError(f"dtype must be a numpy dtype or its name, got {dtype!r}")
    name = _DTYPE_ALIASES.get(dtype, dtype) if isinstance(dtype, str) else dtype
    try:
        numpy_dtype = np.dtype(name)
    except TypeError:
        numpy_dtype = None
    if numpy_dtype is None or numpy_dtype.kind not in "biuf":
        raise ValueError(f"unknown dtype {dtype!r}; try 'float16', 'bf16' or 'float32'")
    return numpy_dtype.itemsize


def attention_matrix_bytes(n: int, dtype: Any = "float16", heads: int = 1, layers: int = 1) -> int:
    """Bytes to store the attention matrices in `dtype` ("float16"/"fp16"/"bf16": 2 bytes, "float32"/"fp32": 4).

    >>> attention_matrix_bytes(4096)
    33554432
    >>> attention_matrix_bytes(4096, "fp32", heads=32)
    2147483648
    """
    return attention_matrix_elements(n, heads, layers) * bytes_per_element(dtype)


def _three_digits(value: float) -> str:
    # 3 significant digits, trailing zeros trimmed: 0.5, 32, 30.5, 1.07 (and 1000, not 1e+03).
    decimals = max(0, 2 - math.floor(math.log10(value)))
    return f"{value:.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{value:.0f}"


def format_bytes(nbytes: int) -> str:
    """Bytes in binary units (KiB, MiB, GiB, TiB), 3 significant digits.

    The unit is the largest one the amount reaches at least half of, so 2¹⁹ bytes reads
    "0.5 MiB" (as in the article's table), not "512 KiB".

    >>> [format_bytes(attention_matrix_bytes(n)) for n in (512, 4096, 32768, 128000)]
    ['0.5 MiB', '32 MiB', '2 GiB', '30.5 GiB']
    >>> format_bytes(100)
    '100 B'
    """
    nbytes = check_int(nbytes, "nbytes", minimum=0)
    units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
    power = 0
    while power + 1 < len(units) and nbytes >= 1024 ** (power + 1) / 2:
        power += 1
    if power == 0:
        return f"{int(nbytes)} B"
    return f"{_three_digits(nbytes / 1024**power)} {units[power]}"


def format_count(n: int) -> str:
    """A count with 3 significant digits and a decimal suffix K (10³), M (10⁶), B (10⁹), T (10¹²).

    >>> [format_count(attention_matrix_elements(n)) for n in (512, 4096, 32768, 128000)]
    ['262K', '16.8M', '1.07B', '16.4B']
    """
    n = check_int(n, "n", minimum=0)
    if n < 1000:
        return str(int(n))
    suffixes = ("", "K", "M", "B", "T")
    power = min(int(math.log10(n)) // 3, len(suffixes) - 1)
    text = _three_digits(n / 1000**power)
    if text == "1000" and power + 1 < len(suffixes):  # 999,999 rounds up to the next suffix
        power, text = power + 1, "1"
    return f"{text}{suffixes[power]}"


@dataclass(frozen=True)
class MemoryRow:
    """One row of the article's memory table: sequence length n, n² elements, their bytes."""

    n: int
    elements: int
    bytes: int
    elements_text: str
    bytes_text: str


def memory_table(ns: Sequence[int] = (512, 4096, 32768, 128000), dtype: Any = "float16") -> list[MemoryRow]:
    """The article's table of attention-matrix memory per sequence length (one head, one layer).

    >>> for row in memory_table():
    ...     print(row.n, row.elements_text, row.bytes_text)
    512 262K 0.5 MiB
    4096 16.8M 32 MiB
    32768 1.07B 2 GiB
    128000 16.4B 30.5 GiB
    """
    check_sequence(ns, "ns", "positive ints")
    rows = []
    for n in ns:
        n = check_positive_int(n, "ns entry")  # the error names the argument, not the n inside
        elements = attention_matrix_elements(n)
        nbytes = attention_matrix_bytes(n, dtype)
        rows.append(MemoryRow(int(n), elements, nbytes, format_count(elements), format_bytes(nbytes)))
    return rows
