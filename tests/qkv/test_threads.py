"""The kernel's blocks on two threads with OpenBLAS on one (qkv/_threads.py): same results, the thread
count put back, a silent fall-back to one thread when OpenBLAS's symbol is not there, errors passed on."""

from __future__ import annotations

import multiprocessing
import threading

import numpy as np
import pytest

import qkv._threads as threads
from qkv import plain_attention, scaled_dot_product_attention

RNG = np.random.default_rng(7)
needs_openblas = pytest.mark.skipif(threads._openblas is None or threads._cores() < 2,
                                    reason="numpy's OpenBLAS symbol or a second core is missing")


def _recording(monkeypatch: pytest.MonkeyPatch, wait_for_pool: bool = True) -> tuple[set[str], list[int]]:
    """Record which threads run the blocks and OpenBLAS's thread count while they run. On two threads the caller
    takes its first block only once the pool's thread has begun (else, on a busy machine, it may run every block
    and cancel the pool's share), so that both threads are seen; ``wait_for_pool=False``: it does not wait."""
    names: set[str] = set()
    counts: list[int] = []
    real, real_two = threads._take_tasks, threads._on_two_threads
    pool_began, on_two = threading.Event(), threading.Event()

    def take_tasks(tasks, numbers, run):  # type: ignore[no-untyped-def]
        names.add(threading.current_thread().name)
        if threads._openblas is not None:
            counts.append(threads._openblas[1]())
        if threading.current_thread() is not threading.main_thread():
            pool_began.set()
        elif wait_for_pool and on_two.is_set():
            assert pool_began.wait(timeout=60), "the pool's thread did not begin within 60 s"
        real(tasks, numbers, run)

    def on_two_threads(tasks, run):  # type: ignore[no-untyped-def]
        on_two.set()
        try:
            real_two(tasks, run)
        finally:
            on_two.clear()
            pool_began.clear()

    monkeypatch.setattr(threads, "_take_tasks", take_tasks)
    monkeypatch.setattr(threads, "_on_two_threads", on_two_threads)
    return names, counts


@needs_openblas
@pytest.mark.parametrize("is_causal", [False, True])
def test_two_threads_give_the_five_steps_result_and_put_the_thread_count_back(monkeypatch: pytest.MonkeyPatch,
                                                                              is_causal: bool) -> None:
    q, k, v = (RNG.standard_normal((1, 4, 600, 16)) for _ in range(3))  # several blocks per head
    monkeypatch.setattr(threads, "MIN_SCORES", 0)
    before = threads._openblas[1]()
    names, counts = _recording(monkeypatch)
    fast = scaled_dot_product_attention(q, k, v, is_causal=is_causal)
    plain = plain_attention(q, k, v, is_causal=is_causal)
    np.testing.assert_allclose(fast.output, plain.output, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fast.weights, plain.weights, rtol=0, atol=1e-13)
    # The caller and the pool's one thread both took blocks (or found none left), with OpenBLAS on one thread.
    caller = threading.current_thread().name
    assert caller in names and len(names) == 2 and all(name.startswith("qkv") for name in names - {caller}), names
    assert counts == [1, 1]
    assert threads._openblas[1]() == before  # and as it was after


def test_without_the_openblas_symbol_the_blocks_run_in_the_calling_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    q, k, v = (RNG.standard_normal((1, 4, 600, 16)) for _ in range(3))
    monkeypatch.setattr(threads, "MIN_SCORES", 0)
    monkeypatch.setattr(threads, "_openblas", None)
    names, _ = _recording(monkeypatch)
    fast = scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(fast.output, plain_attention(q, k, v).output, rtol=0, atol=1e-12)
    assert names == {threading.current_thread().name}


def test_small_calls_and_a_call_already_under_way_stay_in_the_calling_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    q, k, v = (RNG.standard_normal((2, 100, 8)) for _ in range(3))  # far below MIN_SCORES
    names, _ = _recording(monkeypatch)
    scaled_dot_product_attention(q, k, v)
    assert names == {threading.current_thread().name}
    monkeypatch.setattr(threads, "MIN_SCORES", 0)
    with threads._lock:  # another call holds the thread count
        scaled_dot_product_attention(q, k, v)
    assert names == {threading.current_thread().name}


@needs_openblas
def test_an_error_in_a_block_on_a_thread_reaches_the_caller_and_the_count_is_put_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads, "MIN_SCORES", 0)
    before = threads._openblas[1]()
    q = RNG.standard_normal((1, 2, 600, 4)).astype(np.float32)
    q[0, 1, 500] = 3e38  # one row of the second head overflows
    k = np.ones((1, 2, 600, 4), dtype=np.float32)
    with pytest.raises(ValueError, match="overflowed"):
        scaled_dot_product_attention(q, k, k)
    assert threads._openblas[1]() == before


def _attention_shape_in_child(q: np.ndarray, results: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    results.put(scaled_dot_product_attention(q, q, q).output.shape)


def test_one_blas_thread_sets_the_count_only_when_it_is_not_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenBLAS on two threads: set to one inside, put back after; already on one: neither set nor put back."""
    count, calls = [2], []

    def set_threads(n: int) -> None:
        calls.append(n)
        count[0] = n

    monkeypatch.setattr(threads, "_openblas", (set_threads, lambda: count[0]))
    with threads.one_blas_thread() as pinned:
        assert pinned and count == [1]
    assert calls == [1, 2] and count == [2]
    count[0], calls[:] = 1, []
    with threads.one_blas_thread() as pinned:
        assert pinned and count == [1]
    assert calls == [] and count == [1]


@needs_openblas
def test_a_forked_child_runs_the_two_thread_call_its_parent_ran(monkeypatch: pytest.MonkeyPatch) -> None:
    # fork copies the parent's pool but not the pool's thread: a child that handed it a block would wait forever.
    monkeypatch.setattr(threads, "MIN_SCORES", 0)  # the child inherits this too
    q = RNG.standard_normal((1, 4, 600, 16))
    names, _ = _recording(monkeypatch)
    scaled_dot_product_attention(q, q, q)
    assert len(names) == 2 and threads._pool is not None  # the parent has used its pool
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=_attention_shape_in_child, args=(q, results))
    child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail("the forked child was still waiting after 60 s")
    assert child.exitcode == 0
    assert results.get(timeout=5) == q.shape


def test_the_openblas_reach_resolves_on_the_installed_numpy() -> None:
    # After a numpy bump that moves its bundled OpenBLAS or renames the symbol, qkv would silently run on one
    # thread: this test says so, naming the version the reach was written for.
    reach = threads.OPENBLAS_REACH
    assert threads._openblas is not None, (f"numpy {np.__version__} has no {reach['symbols']} in {reach['library']}; "
                                           f"the reach was written for numpy {reach['written_for']}")


@needs_openblas
def test_a_pool_thread_that_has_not_begun_is_not_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a busy machine the pool's thread may get a core only after the caller has run every block: then the
    call returns at once, its share cancelled, the thread count put back."""
    monkeypatch.setattr(threads, "MIN_SCORES", 0)
    q, k, v = (RNG.standard_normal((1, 4, 600, 16)) for _ in range(3))
    scaled_dot_product_attention(q, k, v)  # the pool exists
    assert threads._pool is not None
    release = threading.Event()
    busy = threads._pool.submit(release.wait, 60)  # the pool's one thread is taken: qkv's share stays queued
    names, counts = _recording(monkeypatch, wait_for_pool=False)
    try:
        before = threads._openblas[1]()
        fast = scaled_dot_product_attention(q, k, v)
        assert not busy.done() and names == {threading.current_thread().name} and counts == [1]
        assert threads._openblas[1]() == before
    finally:
        release.set()
    np.testing.assert_allclose(fast.output, plain_attention(q, k, v).output, rtol=0, atol=1e-12)
    assert busy.result(timeout=60) is True
