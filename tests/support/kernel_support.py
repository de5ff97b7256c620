"""What the kernel tests (test_kernel.py, test_output_blocks.py) record while a call runs: the blocks of
q·kᵀ it multiplies, and the arrays it makes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest


@contextmanager
def score_products(monkeypatch: pytest.MonkeyPatch, d_k: int) -> Iterator[list[int]]:
    """The number of scores (rows × keys) of each q·kᵀ block, a (rows, d_k) @ (d_k, keys) product, made inside."""
    computed: list[int] = []
    original = np.matmul

    def counting_matmul(a, b, *args, **kwargs):  # type: ignore[no-untyped-def]
        if a.shape[-1] == d_k and b.shape[-2] == d_k:
            computed.append(a.shape[-2] * b.shape[-1])
        return original(a, b, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(np, "matmul", counting_matmul)
        yield computed


@contextmanager
def array_sizes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The number of elements of each array made with np.empty inside."""
    sizes: list[int] = []
    original = np.empty

    def recording_empty(shape, *args, **kwargs):  # type: ignore[no-untyped-def]
        sizes.append(int(np.prod(shape)))
        return original(shape, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(np, "empty", recording_empty)
        yield sizes
