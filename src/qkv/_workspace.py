"""Each thread's scratch arrays for the kernels' blocks, kept from one call to the next.

numpy asks the system for fresh memory for every large array and gives it back when the array is
freed, so a new megabyte costs some 250 page faults the first time it is written: on a virtual
machine about 0.7 ms, most of a small attention call's own arithmetic. The kernels therefore take
their block buffers (scores, scaled queries, partial outputs) from here: one flat array per name,
dtype and thread, grown when a call needs more. Arrays above `KEPT_BYTES` are not kept: a call that
large spends far longer on its arithmetic than on its page faults.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

KEPT_BYTES = 4 << 20  # per array and thread: a few MiB at most stay allocated between calls
_arrays = threading.local()


def scratch(name: str, shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray:
    """An array of `shape` and `dtype` that only the calling thread uses; its contents are undefined.

    The same name in the same thread gives the same memory, so a caller must be done with one
    before it asks for it again.

    >>> a = scratch("example", (2, 3), np.dtype(np.float32))
    >>> b = scratch("example", (3, 2), np.dtype(np.float32))
    >>> a.shape, b.shape, bool(np.shares_memory(a, b))
    ((2, 3), (3, 2), True)
    """
    size = int(np.prod(shape))
    kept: dict[tuple[str, np.dtype[Any]], np.ndarray] = _arrays.__dict__.setdefault("kept", {})
    flat = kept.get((name, dtype))
    if flat is None or flat.size < size:
        flat = np.empty(size, dtype)
        if flat.nbytes <= KEPT_BYTES:
            kept[name, dtype] = flat
    return flat[:size].reshape(shape)
