"""Peak memory of ordinary vs tiled attention, n = 256 … 16,384, d = 64, float32 (tracemalloc).

    .venv/bin/python benchmarks/attention_memory.py            # full run (about a minute), writes benchmarks/results/attention_memory.json
    .venv/bin/python benchmarks/attention_memory.py --quick    # seconds: checks the script works, saves nothing

numpy reports every array it allocates to Python's tracemalloc, so the traced peak of one call is
the extra memory that call needed on top of its inputs (q, k and v are made before tracing starts).
The ordinary `qkv.scaled_dot_product_attention` returns the n×n weights (at n = 16,384 in float32 that
matrix is 1 GiB) and computes the scores straight into them, so its peak should stay close to that one
matrix; `qkv.tiled_attention` holds a few block_size × block_size tiles and the n×d output. The
ordinary one is also measured on float16 inputs (computed in float32 a few rows at a time). The calls
run one after the other, never at the same time.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable

import numpy as np

from _common import machine_info, output_path, parser, run_main, table, verdict, write_results

from qkv import scaled_dot_product_attention, tiled_attention
from qkv.complexity import format_bytes

TARGET_N, TARGET_FRACTION = 16384, 0.05
ORDINARY_FROM_N, ORDINARY_LIMIT = 512, 1.5  # ordinary peak / one n×n matrix, at every n from 512 on
FULL_NS = [256, 512, 1024, 2048, 4096, 8192, 16384]
QUICK_NS = [128, 256]
D = 64
BLOCK_SIZE = 128  # small tiles, so that the tiled peak shows its O(n) growth from the smallest n on


def traced_peak(function: Callable[[], object]) -> tuple[int, float]:
    """Peak bytes allocated (and not yet freed) while `function` runs, and its time; the result is dropped."""
    gc.collect()
    tracemalloc.start()
    try:
        start = time.perf_counter()
        result = function()
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del result
    gc.collect()
    return peak, seconds


def main(argv: list[str] | None = None) -> int:
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    ns = QUICK_NS if args.quick else FULL_NS
    machine = machine_info()
    print(f"peak traced memory of one attention call, d = {D}, float32 (and float16), tiled block_size = {BLOCK_SIZE}"
          f"{' (--quick)' if args.quick else ''}")
    print(f"numpy {np.__version__}; {machine['cpu_model']}, {machine['usable_cpus']} CPUs, {machine['memory_gib']} GiB\n")

    rng = np.random.default_rng(0)
    scaled_dot_product_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)))  # numpy's first-call caches
    tiled_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)))
    results, rows = [], []
    for n in ns:
        q, k, v = (rng.standard_normal((n, D), dtype=np.float32) for _ in range(3))
        naive_peak, naive_s = traced_peak(lambda: scaled_dot_product_attention(q, k, v))
        tiled_peak, tiled_s = traced_peak(lambda: tiled_attention(q, k, v, block_size=BLOCK_SIZE))
        q16, k16, v16 = (x.astype(np.float16) for x in (q, k, v))
        del q, k, v
        half_peak, half_s = traced_peak(lambda: scaled_dot_product_attention(q16, k16, v16))
        del q16, k16, v16
        matrix = n * n * 4
        results.append({"n": n, "naive_peak_bytes": naive_peak, "tiled_peak_bytes": tiled_peak,
                        "n_by_n_float32_bytes": matrix, "naive_seconds": naive_s, "tiled_seconds": tiled_s,
                        "ratio": tiled_peak / naive_peak, "naive_per_n_by_n": naive_peak / matrix,
                        "naive_float16_peak_bytes": half_peak, "n_by_n_float16_bytes": matrix // 2,
                        "naive_float16_per_n_by_n": half_peak / (matrix // 2), "naive_float16_seconds": half_s})
        rows.append([f"{n:,}", format_bytes(matrix), format_bytes(naive_peak), f"{naive_peak / matrix:.2f}×",
                     format_bytes(half_peak), f"{half_peak / (matrix // 2):.2f}×", format_bytes(tiled_peak),
                     f"{tiled_peak / naive_peak:.2%}", f"{naive_s:.2f} s", f"{tiled_s:.2f} s"])
        print(f"  n = {n:,} done", flush=True)
    print()
    print(table(["n", "one n×n float32", "naive peak", "naive/n×n", "naive float16 peak", "float16/n×n",
                 "tiled peak", "tiled/naive", "naive time", "tiled time"], rows))

    last = {r["n"]: r for r in results}[TARGET_N if TARGET_N in ns else max(ns)]
    met = last["ratio"] < TARGET_FRACTION
    where = "" if last["n"] == TARGET_N else f" (--quick: checked at n = {last['n']:,} instead)"
    print(f"\ntarget: tiled peak under {TARGET_FRACTION:.0%} of naive at n = {TARGET_N:,}: {verdict(met)} "
          f"(tiled/naive = {last['ratio']:.2%}: {format_bytes(last['tiled_peak_bytes'])} vs "
          f"{format_bytes(last['naive_peak_bytes'])}){where}")

    checked = [r for r in results if r["n"] >= ORDINARY_FROM_N] or results  # --quick: its own sizes
    worst = max(checked, key=lambda r: r["naive_per_n_by_n"])
    ordinary = {"description": f"ordinary peak at most {ORDINARY_LIMIT}× one n×n float32 matrix at every n from "
                               f"{ORDINARY_FROM_N:,} on", "n": worst["n"], "limit": ORDINARY_LIMIT,
                "ratio": worst["naive_per_n_by_n"], "met": worst["naive_per_n_by_n"] <= ORDINARY_LIMIT}
    print(f"target: {ordinary['description']}: {verdict(ordinary['met'])} "
          f"(worst {ordinary['ratio']:.2f}× at n = {worst['n']:,})")

    write_results(output_path(args, "attention_memory"), {
        "benchmark": "attention_memory",
        "quick": args.quick,
        "d": D,
        "dtype": "float32",
        "block_size": BLOCK_SIZE,
        "ns": ns,
        "method": "tracemalloc peak of one call; inputs allocated before tracing; one call at a time",
        "implementations": {
            "naive": "qkv.scaled_dot_product_attention",
            "naive_float16": "qkv.scaled_dot_product_attention on float16 copies of the inputs",
            "tiled": f"qkv.tiled_attention(block_size={BLOCK_SIZE})",
        },
        "results": results,
        "target": {"description": f"tiled peak under {TARGET_FRACTION:.0%} of naive at n = {TARGET_N:,}",
                   "n": last["n"], "limit": TARGET_FRACTION, "ratio": last["ratio"], "met": met},
        "ordinary_target": ordinary,
        "machine": machine,
    })
    return 0


if __name__ == "__main__":
    run_main(main)
