"""The kernels' scratch arrays (qkv/_workspace.py): kept per thread between calls, never shared, bounded."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from qkv import _workspace
from qkv._workspace import KEPT_BYTES, scratch

pytestmark = pytest.mark.unit
FLOAT32 = np.dtype(np.float32)


@pytest.fixture(autouse=True)
def _fresh_workspace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_workspace, "_arrays", threading.local())


def test_a_second_call_gets_the_same_memory_and_a_larger_one_grows_it() -> None:
    first = scratch("scores", (4, 8), FLOAT32)
    again = scratch("scores", (8, 4), FLOAT32)
    larger = scratch("scores", (16, 8), FLOAT32)
    assert np.shares_memory(first, again) and not np.shares_memory(first, larger)
    assert np.shares_memory(larger, scratch("scores", (2, 2), FLOAT32))  # the grown one is the one kept


def test_names_dtypes_and_threads_get_memory_of_their_own() -> None:
    scores = scratch("scores", (4, 8), FLOAT32)
    assert not np.shares_memory(scores, scratch("partial", (4, 8), FLOAT32))
    assert scratch("scores", (4, 8), np.dtype(np.float64)).dtype == np.float64
    other: list[np.ndarray] = []
    thread = threading.Thread(target=lambda: other.append(scratch("scores", (4, 8), FLOAT32)))
    thread.start()
    thread.join()
    assert not np.shares_memory(scores, other[0])


def test_arrays_above_the_limit_are_not_kept() -> None:
    numbers = KEPT_BYTES // 4 + 1
    big = scratch("scores", (numbers,), FLOAT32)
    assert big.shape == (numbers,) and not np.shares_memory(big, scratch("scores", (numbers,), FLOAT32))
