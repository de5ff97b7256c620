"""Two Python threads over the kernel's blocks, with numpy's OpenBLAS on one thread for the call.

numpy releases the GIL inside its matrix products and its elementwise passes, so two Python threads
(the caller and one of a pool) can run blocks at once, each taking the next block until none is
left. Left alone, OpenBLAS would run every product of both threads on all cores with its one pool of
workers, and the threads would wait on each other; set to one thread, each product stays on the core
of the thread that asked for it, and the exponentials, which OpenBLAS never parallelises, now run on
both cores too.

numpy has no API for OpenBLAS's thread count, so this finds the OpenBLAS that numpy loaded (its
bundled ``numpy.libs/lib*openblas*.so``) and calls its ``*_set_num_threads`` with `ctypes`, and puts
the previous count back after the call. The count is OpenBLAS's, for the whole process: while a
two-thread call runs, any other thread's products in numpy run on one thread too. This is qkv's one
reach into another package's internals; `OPENBLAS_REACH` names the numpy it was written for
(qkv_site's registry of reaches, `qkv_site.builder.compat`, lists it from there, since qkv imports
nothing of the site), and a test checks that the pinned numpy still has it. threadpoolctl does the
same from outside, but would be a second dependency of a package that needs only numpy.

Anything missing (another BLAS, no such symbol, one core, a call already under way in another thread)
and the blocks run one after another as before. A process forked from one that has used the pool
starts without it: fork copies the pool but not its thread.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import numpy as np

Task = TypeVar("Task")
THREADS = 2
MIN_SCORES = 1 << 20  # below one block of scores, starting threads costs more than it saves
_SYMBOLS = ("scipy_openblas_{}64_", "scipy_openblas_{}", "openblas_{}64_", "openblas_{}")
# What the reach below was written for: numpy 2.4.6's wheel bundles scipy-openblas 0.3.31 as
# numpy.libs/libscipy_openblas64_-*.so, whose thread count is scipy_openblas_set_num_threads64_.
OPENBLAS_REACH = {"package": "numpy", "written_for": "2.4.6", "library": "numpy.libs/lib*openblas*.so*",
                  "symbols": "scipy_openblas_set_num_threads64_, scipy_openblas_get_num_threads64_",
                  "why": "OpenBLAS on one thread while qkv runs its blocks on two Python threads"}
_lock = threading.Lock()  # the thread count is global to the process: one call at a time changes it
_pool: ThreadPoolExecutor | None = None


def _forget_the_parents_pool() -> None:
    """In a forked child: a new lock and no pool. fork copies the pool object but not its thread, so a block
    handed to it would wait forever; and a lock the parent held during the fork would never be released."""
    global _lock, _pool
    _lock, _pool = threading.Lock(), None


os.register_at_fork(after_in_child=_forget_the_parents_pool)


def _find_openblas() -> tuple[Callable[[int], None], Callable[[], int]] | None:
    """(set_num_threads, get_num_threads) of the OpenBLAS numpy loaded, or None."""
    libs = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    try:
        paths = sorted(libs.glob("lib*openblas*.so*"))
    except OSError:
        return None
    for path in paths:
        try:
            library = ctypes.CDLL(str(path))  # already loaded by numpy: the same library, not a second copy
        except OSError:
            continue
        for pattern in _SYMBOLS:
            setter = getattr(library, pattern.format("set_num_threads"), None)
            getter = getattr(library, pattern.format("get_num_threads"), None)
            if setter is not None and getter is not None:
                setter.argtypes, setter.restype = [ctypes.c_int], None
                getter.argtypes, getter.restype = [], ctypes.c_int
                return setter, getter
    return None


_openblas = _find_openblas()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@contextmanager
def one_blas_thread() -> Iterator[bool]:
    """OpenBLAS on one thread inside the block (True), or nothing changed (False). Where it already runs one
    thread its count is neither set nor put back."""
    if _openblas is None or not _lock.acquire(blocking=False):
        yield False
        return
    set_threads, get_threads = _openblas
    try:
        before = get_threads()
        if before != 1:
            set_threads(1)
        try:
            yield True
        finally:
            if before != 1:
                set_threads(before)
    finally:
        _lock.release()


def run_blocks(tasks: Sequence[Task], run: Callable[[Task], None], scores: int) -> None:
    """``run(task)`` for every task: on two threads when that can help, else one after another.

    The calling thread is one of the two: it is already running, so only the pool's thread has to be
    woken (after an idle pause that can take milliseconds). Each takes the next task until none is
    left, so a thread that starts late, or gets the larger causal blocks, does fewer.
    """
    if len(tasks) > 1 and scores >= MIN_SCORES and _cores() >= THREADS:
        with one_blas_thread() as ready:
            if ready:
                _on_two_threads(tasks, run)
                return
    _take_tasks(tasks, itertools.count(), run)


def _on_two_threads(tasks: Sequence[Task], run: Callable[[Task], None]) -> None:
    """The tasks on the calling thread and the pool's, each taking the next; OpenBLAS is already on one thread.

    When the caller has run every task before the pool's thread began (on a busy machine a woken thread may
    wait milliseconds for a core), the pool's work is cancelled rather than waited for.
    """
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=THREADS - 1, thread_name_prefix="qkv")
    numbers = itertools.count()  # next() on it is one step under the GIL: no task is taken twice
    other = _pool.submit(_take_tasks, tasks, numbers, run)
    try:
        _take_tasks(tasks, numbers, run)
    finally:
        # wait for the other thread, if it began, before the thread count goes back
        error = None if other.cancel() else other.exception()
    if error is not None:
        raise error


def _take_tasks(tasks: Sequence[Task], numbers: Iterator[int], run: Callable[[Task], None]) -> None:
    """Run the task of each next number until the numbers pass the last task."""
    for number in numbers:
        if number >= len(tasks):
            return
        run(tasks[number])
