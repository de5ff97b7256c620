"""Where qkv's attention spends its time: each step of the kernel's block loop, timed on its own, beside
PyTorch's fused kernel on the same (1, 8, n, 64) float32 inputs.

    .venv/bin/python benchmarks/attention_profile.py            # n = 512 … 4,096; prints, saves nothing
    .venv/bin/python benchmarks/attention_profile.py --quick    # n = 256: checks the script works

The inputs are standard normal, so every score lies within ±30 and `qkv.attention_output` takes its
key-block path (src/qkv/_output_blocks.py): for one block of query rows of one head and one block of
keys, the product q·kᵀ, exp, the row sums, the product with v and, after the first key block, the
addition of that partial output; and, once per block of rows, the division by the sums. Each step is
run over every block of every head in one thread with OpenBLAS on one thread, as each of the kernel's
two threads runs its half, and timed over all blocks (the same buffers, so a step reads what the one
before it left in the cache); then the whole one-thread loop, then the real two-thread call and
PyTorch's, interleaved, medians; and what a call does before its blocks (checking and converting the
inputs, bounding the scores and checking v). The shares say which steps a faster kernel would have to
fuse or remove; the last lines compare what two threads reach with PyTorch's call.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from _common import median, parser, table

from qkv import attention_output
from qkv._inputs import attention_inputs
from qkv._output_blocks import KEYS, ROWS, applies
from qkv._threads import one_blas_thread

D, HEADS = 64, 8
NS, QUICK_NS = [512, 1024, 2048, 4096], [256]
REPEATS, QUICK_REPEATS = 5, 1


def steps(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> dict[str, Callable[[], None]]:
    """The key-block path's steps for every block of every head, each as one function over all blocks."""
    n = q.shape[-2]
    rows, keys = min(n, ROWS), min(n, KEYS)
    products = np.empty((rows, keys), np.float32)  # q·kᵀ; exp reads it and writes `scores`, so timing exp
    scores = np.empty((rows, keys), np.float32)    # over and over never takes exp of exp; the later steps read `scores`
    sums = np.zeros((rows, 1), np.float32)
    partial = np.empty((rows, v.shape[-1]), np.float32)
    output = np.empty(q.shape[:-1] + (v.shape[-1],), np.float32)
    blocks = [(h, r0, c0) for h in range(q.shape[1]) for r0 in range(0, n, rows) for c0 in range(0, n, keys)]
    q = q * np.float32(1 / np.sqrt(D))

    def over_blocks(step: Callable[[int, int, int], None]) -> Callable[[], None]:
        def run() -> None:
            for h, r0, c0 in blocks:
                step(h, r0, c0)
        return run

    def product(h: int, r0: int, c0: int) -> None:
        np.matmul(q[0, h, r0:r0 + rows], k[0, h, c0:c0 + keys].T, out=products)  # (rows, d) @ (d, keys)

    def exponent(h: int, r0: int, c0: int) -> None:
        np.exp(products, out=scores)

    def row_sums(h: int, r0: int, c0: int) -> None:
        sums[:] += scores.sum(axis=-1, keepdims=True)

    def times_v(h: int, r0: int, c0: int) -> None:
        np.matmul(scores, v[0, h, c0:c0 + keys], out=output[0, h, r0:r0 + rows] if c0 == 0 else partial)  # (rows, keys) @ (keys, d)

    def add(h: int, r0: int, c0: int) -> None:
        if c0:
            output[0, h, r0:r0 + rows] += partial

    def divide(h: int, r0: int, c0: int) -> None:
        if c0 + keys >= n:
            output[0, h, r0:r0 + rows] *= 1.0 / sums

    def whole(h: int, r0: int, c0: int) -> None:
        for step in (product, exponent, row_sums, times_v, add, divide):
            step(h, r0, c0)

    return {"q·kᵀ": over_blocks(product), "exp": over_blocks(exponent), "row sums": over_blocks(row_sums),
            "·v": over_blocks(times_v), "add the partial output": over_blocks(add), "divide": over_blocks(divide),
            "one thread, all steps": over_blocks(whole)}


def timed(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__).parse_args(argv)
    ns, repeats = (QUICK_NS, QUICK_REPEATS) if args.quick else (NS, REPEATS)
    import torch

    torch.set_num_threads(2)
    rng = np.random.default_rng(0)
    for n in ns:
        q, k, v = (rng.standard_normal((1, HEADS, n, D), dtype=np.float32) for _ in range(3))
        assert applies(attention_inputs(q, k, v, mask=None, scale=None, is_causal=False, enable_gqa=False)), "scores past ±30"
        tq, tk, tv = (torch.from_numpy(x) for x in (q, k, v))
        def checks(q=q, k=k, v=v):
            return attention_inputs(q, k, v, mask=None, scale=None, is_causal=False, enable_gqa=False)

        inputs = checks()
        before = {"checks": checks, "bound and v": lambda inputs=inputs: applies(inputs)}
        before_times = {name: median([timed(f) for _ in range(10 * repeats)]) for name, f in before.items()}
        with one_blas_thread():
            parts = steps(q, k, v)
            for part in parts.values():
                part()  # warm: the buffers touched, BLAS's code paths loaded
            samples: dict[str, list[float]] = {name: [] for name in parts}
            for _ in range(repeats):
                for name, part in parts.items():
                    samples[name].append(timed(part))
        whole = {"qkv.attention_output (two threads)": lambda q=q, k=k, v=v: attention_output(q, k, v),
                 "PyTorch (fused flash kernel)":
                     lambda tq=tq, tk=tk, tv=tv: torch.nn.functional.scaled_dot_product_attention(tq, tk, tv)}
        calls: dict[str, list[float]] = {name: [] for name in whole}
        for call in whole.values():
            call()  # warm
        for repeat in range(repeats):
            for name in (list(whole) if repeat % 2 == 0 else list(whole)[::-1]):
                time.sleep(0.2)  # let the other library's thread pool go idle
                calls[name].append(timed(whole[name]))
        medians = {name: median(times) for name, times in samples.items()}
        loop = medians.pop("one thread, all steps")
        steps_total = sum(medians.values())
        torch_time = median(calls["PyTorch (fused flash kernel)"])
        ours = median(calls["qkv.attention_output (two threads)"])
        print(f"\n(1, {HEADS}, {n:,}, {D}) float32, medians of {repeats}:")
        print(table(["step (one thread, every block)", "time", "share of the steps"],
                    [[name, f"{seconds * 1e3:.1f} ms", f"{seconds / steps_total:.0%}"] for name, seconds in medians.items()]))
        print(f"one thread, all steps together: {loop * 1e3:.1f} ms (the steps one by one: {steps_total * 1e3:.1f} ms)")
        print(f"half of that, as if two threads shared it perfectly: {loop / 2 * 1e3:.1f} ms")
        print(f"qkv.attention_output on two threads: {ours * 1e3:.1f} ms; PyTorch's fused kernel: {torch_time * 1e3:.1f} ms; "
              f"qkv / PyTorch = {ours / torch_time:.2f}")
        print(f"before the blocks: checking the inputs {before_times['checks'] * 1e3:.2f} ms, bounding the scores and "
              f"checking v {before_times['bound and v'] * 1e3:.2f} ms (medians of {10 * repeats} back-to-back calls)")
        print(f"the two products alone on two threads would take {(medians['q·kᵀ'] + medians['·v']) / 2 * 1e3:.1f} ms, "
              f"{(medians['q·kᵀ'] + medians['·v']) / 2 / torch_time:.2f}× PyTorch's whole call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
