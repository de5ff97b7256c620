"""Time qkv's attention against PyTorch's CPU kernel and a pure-Python loop, n = 128 … 4,096, d = 64, float32 (and float16).

    .venv/bin/python benchmarks/attention_speed.py            # full run, writes benchmarks/results/attention_speed.json
    .venv/bin/python benchmarks/attention_speed.py --quick    # seconds: checks the script works, saves nothing

Implementations, measured side by side in one run on the same inputs:

- qkv:          qkv.scaled_dot_product_attention (numpy; it also validates the inputs and returns the weights)
- qkv_float16:  the same on float16 copies of the inputs (computed in float32, returned in float16)
- tiled:        qkv.tiled_attention with its default block_size (numpy, a Python loop over tiles)
- torch:        torch.nn.functional.scaled_dot_product_attention on CPU, on the same float32 buffers
- python:       plain Python loops, one dot product and one exp at a time (only up to n = 256: it is slow)

- qkv_causal, tiled_causal: the same with is_causal=True (2-D part only)

A second part times qkv against the kernel PyTorch really runs for each layout, and says which one
it is. qkv is timed twice there: qkv.attention_output returns the output only, as PyTorch does (it
makes no n×n weights on these inputs), and the targets are measured on it; qkv.scaled_dot_product_attention
also returns the weights, and its ratios are printed beside. PyTorch's kernel is named as
torch._fused_sdp_choice gives it (0 = its unfused math path, 1 = its fused flash kernel). The layouts:
2-D (n, d), (1, 1, n, d), (1, 8, n, d), (1, 8, n, d) with is_causal=True, (1, 8, n, d) with large
scores, and a batch-heavy shape (4, 32, 512, d) at n = 512 with as many scores at larger n (4
sequences, 32·(512/n)² heads), in float32, and (1, 8, n, d) and 2-D in float16 too: qkv's
float16/float32 time ratio beside PyTorch's. The inputs are standard normal, so no score can pass
±30 and attention_output takes its key-block path (src/qkv/_output_blocks.py); in the large-scores
row q and k are LARGE_SCORES times as large, and it takes the row-maximum path (src/qkv/_kernel.py).
Each row records the score bound and the path taken; PyTorch's time does not depend on the values.

A decode part times one query against n_k cached keys, (1, 8, 1, d) against (1, 8, n_k, d), the shape
of the KV-cache section: qkv.attention_output beside PyTorch's fused kernel, float32 and float16, for
n_k = 1,024 … 32,768; and grouped-query decode, (1, 32, 1, d) against 8 K/V heads (1, 8, n_k, d), float32,
with enable_gqa=True on both sides. The part records the threads each side ran on: PyTorch's
(torch.get_num_threads()) and qkv's decode path, which runs in the calling thread with OpenBLAS set to
one thread (qkv._threads.one_blas_thread); where that cannot set OpenBLAS, what OpenBLAS uses is recorded.

A third part times qkv.tiled_attention for several block sizes, side by side, and prints the
sweep. The default block size must be within 25% of the fastest at every swept n; among the sizes
that are, smaller is better (a tile's memory grows as block_size²), but near the edge the answer
changes from run to run on a shared machine, so the sweep also prints the smallest such size.

Repeats are interleaved (every implementation once, then again, in a rotating order) so that a
burst of load on a shared machine hits all of them alike; the median of the repeats is reported.
Each sample starts after a pause of PAUSE_SECONDS, in which the other library's threads go idle;
then one call on its own, the first after idling, and then the timed calls, back to back: as many
as calibrated to last at least MIN_SAMPLE_SECONDS (one, where a call takes longer). The layouts part
also records and prints the first calls: on a shared VM the first call after an idle pause is often
slower than the calls that follow it.
PyTorch gets as many threads as numpy's OpenBLAS uses.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from _common import ROOT, _openblas_call, machine_info, median, output_path, parser, run_main, table, verdict, write_results

from qkv import attention_output, scaled_dot_product_attention, tiled_attention
from qkv.tiled import DEFAULT_BLOCK_SIZE
from qkv._decode import applies as decode_applies
from qkv._inputs import attention_inputs
from qkv._output_blocks import applies as key_blocks_apply
from qkv._threads import one_blas_thread
from qkv._output_blocks import score_bound

TARGET_NS, TARGET_RATIO = (512, 4096), 1.15  # 2-D: qkv/torch (PyTorch's math path) at every n in this range
LAYOUT_RATIO = 1.5  # qkv / PyTorch's fused kernel at (1, 8, n, d) and the batch-heavy shape, n = 512 … 4,096
CAUSAL_OWN_RATIO, CAUSAL_FROM_N = 0.7, 2048  # qkv causal / qkv non-causal at (1, 8, n, d), n >= 2,048
LAYOUT_NS, QUICK_LAYOUT_NS = [512, 1024, 2048, 4096], [32, 64]
LAYOUT_REPEATS = 5
DECODE_NKS, QUICK_DECODE_NKS = [1024, 4096, 32768], [64, 128]  # decode: one query against n_k cached keys
DECODE_RATIO = 1.5  # qkv.attention_output / PyTorch's fused kernel at (1, 8, 1, d), every n_k, float32 and float16
FULL_NS = [128, 256, 512, 1024, 2048, 4096]
QUICK_NS = [32, 64]
SWEEP_NS, SWEEP_BLOCK_SIZES = [1024, 4096], [128, 256, 512, 1024, 2048]
QUICK_SWEEP_NS, QUICK_SWEEP_BLOCK_SIZES = [64], [16, 32, 64]
SWEEP_REPEATS = 3
SWEEP_TOLERANCE = 1.25  # "within 25% of the fastest"
D = 64
PYTHON_MAX_N = 256
MIN_SAMPLE_SECONDS = 0.05  # calls that take less are repeated within one sample
# OpenBLAS's and PyTorch's OpenMP threads keep spinning for a while after a call; on 2 cores the
# spinning pool of one library slows the next call of the other down. A pause lets them sleep.
PAUSE_SECONDS = 0.2


def python_attention(q: list[list[float]], k: list[list[float]], v: list[list[float]]) -> list[list[float]]:
    """softmax(q·kᵀ/√d)·v with nothing but Python floats: one row of queries at a time."""
    scale = 1.0 / math.sqrt(len(q[0]))
    output = []
    for q_row in q:
        scores = [sum(a * b for a, b in zip(q_row, k_row)) * scale for k_row in k]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        weights = [e / total for e in exps]
        output.append([sum(w * v_row[j] for w, v_row in zip(weights, v)) for j in range(len(v[0]))])
    return output


def implementations(q: np.ndarray, k: np.ndarray, v: np.ndarray, torch) -> dict[str, Callable[[], object]]:
    functional = torch.nn.functional
    tq, tk, tv = (torch.from_numpy(x) for x in (q, k, v))  # the same float32 buffers, no copy
    lists = [x.astype(np.float64).tolist() for x in (q, k, v)]
    q16, k16, v16 = (x.astype(np.float16) for x in (q, k, v))

    def run_torch():
        with torch.inference_mode():
            return functional.scaled_dot_product_attention(tq, tk, tv)

    found = {
        "qkv": lambda: scaled_dot_product_attention(q, k, v),
        "qkv_float16": lambda: scaled_dot_product_attention(q16, k16, v16),
        "tiled": lambda: tiled_attention(q, k, v),
        "torch": run_torch,
        "qkv_causal": lambda: scaled_dot_product_attention(q, k, v, is_causal=True),
        "tiled_causal": lambda: tiled_attention(q, k, v, is_causal=True),
    }
    if q.shape[0] <= PYTHON_MAX_N:
        found["python"] = lambda: python_attention(*lists)
    return found


def check_outputs(functions: dict[str, Callable[[], object]]) -> None:
    reference = np.asarray(functions["qkv"]()[0], dtype=np.float64)
    causal = np.asarray(functions["qkv_causal"]()[0], dtype=np.float64)
    for name, function in functions.items():
        result = function()
        result = result[0] if name.startswith("qkv") else result
        if name.endswith("_causal"):
            np.testing.assert_allclose(np.asarray(result, dtype=np.float64), causal, rtol=1e-4, atol=1e-5, err_msg=name)
            continue
        tolerance = 2e-3 if name == "qkv_float16" else 1e-5  # float16 inputs are rounded to 11 bits
        np.testing.assert_allclose(np.asarray(result, dtype=np.float64), reference, rtol=1e-4, atol=tolerance, err_msg=name)


def time_once(function: Callable[[], object], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        function()
    return (time.perf_counter() - start) / calls


class Timing(NamedTuple):
    """How samples are taken: the pause before each, and how long its timed calls last at least."""
    pause: float
    min_seconds: float


FULL_TIMING = Timing(PAUSE_SECONDS, MIN_SAMPLE_SECONDS)
QUICK_TIMING = Timing(0.0, 0.0)  # --quick checks that the script works: no pause, one call per sample


def sample(function: Callable[[], object], calls: int, timing: Timing) -> tuple[float, float]:
    """(the first call's time, the time per call of the next `calls`): after the pause, in which the
    other library's threads go idle, one call on its own, then the timed calls back to back."""
    time.sleep(timing.pause)
    first = time_once(function, 1)
    return first, time_once(function, calls)


def calibrate(function: Callable[[], object], timing: Timing) -> int:
    """Calls per sample: double the count until one sample's timed calls, taken as in `measure`, last timing.min_seconds."""
    calls = 1
    while True:
        if sample(function, calls, timing)[1] * calls >= timing.min_seconds:
            return calls
        calls *= 2


def measure(n: int, repeats: int, torch, rng: np.random.Generator, timing: Timing) -> dict[str, dict]:
    q, k, v = (rng.standard_normal((n, D), dtype=np.float32) for _ in range(3))
    functions = implementations(q, k, v, torch)
    check_outputs(functions)  # also the warm-up call of each
    calls = {name: calibrate(f, timing) for name, f in functions.items()}
    samples: dict[str, list[float]] = {name: [] for name in functions}
    names = list(functions)
    python_repeats = min(repeats, 3)
    for repeat in range(repeats):
        order = names[repeat % len(names):] + names[:repeat % len(names)]  # rotate who goes first
        for name in order:
            if name == "python" and repeat >= python_repeats:
                continue
            samples[name].append(sample(functions[name], calls[name], timing)[1])
    return {
        name: {"median_s": median(times), "min_s": min(times), "samples_s": times, "calls_per_sample": calls[name]}
        for name, times in samples.items()
    }


# q and k of the large-scores row are this many times standard normal: scores of standard deviation
# 16 at d = 64, past the ±30 that qkv.attention_output needs for its key-block path.
LARGE_SCORES = 4.0


def layouts(n: int) -> list[tuple[str, tuple[int, ...], bool, bool, float]]:
    """(label, shape, is_causal, also in float16, factor of q and k) of every layout measured at n."""
    heads = max(1, 32 * 512**2 // max(n, 512) ** 2)  # as many scores as (4, 32, 512, d); 32 heads below n = 512 (--quick)
    return [
        ("2-D", (n, D), False, True, 1.0),
        ("(1, 1, n, d)", (1, 1, n, D), False, False, 1.0),
        ("(1, 8, n, d)", (1, 8, n, D), False, True, 1.0),
        ("(1, 8, n, d) causal", (1, 8, n, D), True, False, 1.0),
        ("(1, 8, n, d) large scores", (1, 8, n, D), False, False, LARGE_SCORES),
        ("batch-heavy", (4, heads, n, D), False, False, 1.0),
    ]


TORCH_KERNELS = {0: "math (unfused)", 1: "flash attention (fused)", 2: "memory-efficient attention"}


def measure_layouts(ns: list[int], repeats: int, torch, rng: np.random.Generator, timing: Timing) -> list[dict]:
    """qkv and PyTorch on each layout, float32 (and float16 where asked), interleaved; one row per (layout, dtype, n)."""
    functional, rows = torch.nn.functional, []
    for n in ns:
        for label, shape, causal, half, factor in layouts(n):
            for dtype in (np.float32, np.float16) if half else (np.float32,):
                q, k, v = (rng.standard_normal(shape, dtype=np.float32).astype(dtype) for _ in range(3))
                q, k = q * dtype(factor), k * dtype(factor)
                inputs = attention_inputs(q, k, v, mask=None, scale=None, is_causal=causal, enable_gqa=False)
                tq, tk, tv = (torch.from_numpy(x) for x in (q, k, v))

                def run_torch(tq=tq, tk=tk, tv=tv, causal=causal):
                    with torch.inference_mode():
                        return functional.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)

                functions = {"qkv": lambda q=q, k=k, v=v, causal=causal: scaled_dot_product_attention(q, k, v, is_causal=causal),
                             "qkv_output": lambda q=q, k=k, v=v, causal=causal: attention_output(q, k, v, is_causal=causal),
                             "torch": run_torch}
                expected = run_torch().numpy().astype(np.float64)
                # float32 rounds a score s by about eps·|s|, and its weight by as much: scores factor² as large, a
                # tolerance factor² as large (the large-scores row differs from float64 by up to 4e-5 in float32).
                for output in (functions["qkv"]().output, functions["qkv_output"]()):
                    np.testing.assert_allclose(output.astype(np.float64), expected, rtol=1e-3,
                                               atol=(2e-3 if dtype == np.float16 else 1e-5) * factor**2, err_msg=label)
                calls = {name: calibrate(f, timing) for name, f in functions.items()}
                samples: dict[str, list[float]] = {name: [] for name in functions}
                firsts: dict[str, list[float]] = {name: [] for name in functions}
                names = list(functions)
                for repeat in range(repeats):
                    for name in names[repeat % len(names):] + names[:repeat % len(names)]:  # a rotating order
                        first, per_call = sample(functions[name], calls[name], timing)
                        firsts[name].append(first)
                        samples[name].append(per_call)
                choice = int(torch._fused_sdp_choice(tq, tk, tv, is_causal=causal))
                rows.append({"layout": label, "shape": list(shape), "n": n, "dtype": np.dtype(dtype).name, "is_causal": causal,
                             "qk_factor": factor, "score_bound": score_bound(inputs.q, inputs.k, inputs.scale),
                             "key_blocks": key_blocks_apply(inputs),
                             "torch_kernel": TORCH_KERNELS.get(choice, str(choice)), "torch_sdp_choice": choice,
                             **{f"{name}_calls_per_sample": count for name, count in calls.items()},
                             **{f"{name}_median_s": median(times) for name, times in samples.items()},
                             **{f"{name}_samples_s": times for name, times in samples.items()},
                             **{f"{name}_first_call_median_s": median(times) for name, times in firsts.items()},
                             "qkv_over_torch": median(samples["qkv"]) / median(samples["torch"]),
                             "qkv_output_over_torch": median(samples["qkv_output"]) / median(samples["torch"])})
        print(f"  layouts at n = {n:,} done", flush=True)
    return rows


def layout_report(rows: list[dict], ns: list[int], pause: float) -> dict:
    """Print the tables of the layouts part; the targets measured on it."""
    def row(label: str, n: int, dtype: str = "float32") -> dict:
        return next(r for r in rows if r["layout"] == label and r["n"] == n and r["dtype"] == dtype)

    labels = [label for label, *_ in layouts(ns[0])]
    for name, what in (("qkv_output", "qkv.attention_output (the output only, as PyTorch returns it)"),
                       ("qkv", "qkv.scaled_dot_product_attention (the output and the n×n weights)")):
        print(f"\n{what} / PyTorch by layout, float32 (PyTorch's kernel in brackets):")
        cells = {(label, n): f"{row(label, n)[f'{name}_over_torch']:.2f}× ({row(label, n)['torch_kernel'].split()[0]})"
                 for label in labels for n in ns}
        print(table(["layout", *(f"n = {n:,}" for n in ns)], [[label, *(cells[label, n] for n in ns)] for label in labels]))
    print(f"\nthe first call after a {pause} s idle pause, qkv.attention_output / PyTorch, float32 (not a target):")
    first_calls = {(label, n): row(label, n)["qkv_output_first_call_median_s"] / row(label, n)["torch_first_call_median_s"]
                   for label in labels for n in ns}
    print(table(["layout", *(f"n = {n:,}" for n in ns)], [[label, *(f"{first_calls[label, n]:.2f}×" for n in ns)] for label in labels]))
    paths = {label: {row(label, n)["key_blocks"] for n in ns} for label in labels}
    print("\nattention_output's path: " + "; ".join(
        f"{label}: {' and '.join(sorted('key blocks' if taken else 'row maximum' for taken in paths[label]))}" for label in labels))
    print("\nfloat16 / float32 time, qkv beside PyTorch:")
    half_rows, float16 = [], {}
    for label in ("2-D", "(1, 8, n, d)"):
        for n in ns:
            ours = row(label, n, "float16")["qkv_output_median_s"] / row(label, n)["qkv_output_median_s"]
            with_weights = row(label, n, "float16")["qkv_median_s"] / row(label, n)["qkv_median_s"]
            theirs = row(label, n, "float16")["torch_median_s"] / row(label, n)["torch_median_s"]
            float16[f"{label} n={n}"] = {"qkv_output": ours, "qkv": with_weights, "torch": theirs, "met": ours <= theirs}
            half_rows.append([label, f"{n:,}", f"{ours:.2f}×", f"{with_weights:.2f}×", f"{theirs:.2f}×"])
    print(table(["layout", "n", "qkv output only float16/float32", "qkv with weights", "PyTorch float16/float32"], half_rows))
    own = {n: row("(1, 8, n, d) causal", n)["qkv_output_median_s"] / row("(1, 8, n, d)", n)["qkv_output_median_s"] for n in ns}
    own_with_weights = {n: row("(1, 8, n, d) causal", n)["qkv_median_s"] / row("(1, 8, n, d)", n)["qkv_median_s"] for n in ns}
    print("\nqkv causal / qkv non-causal at (1, 8, n, d), output only: " + ", ".join(f"{own[n]:.2f} at n = {n:,}" for n in ns))
    print("the same with the weights: " + ", ".join(f"{own_with_weights[n]:.2f} at n = {n:,}" for n in ns))
    fused = {label: {n: row(label, n)["qkv_output_over_torch"] for n in ns}
             for label in ("(1, 8, n, d)", "batch-heavy", "(1, 8, n, d) causal")}
    causal_ns = [n for n in ns if n >= CAUSAL_FROM_N] or ns[-1:]
    span = f"every n from {ns[0]:,} to {ns[-1]:,}"
    ours = "qkv.attention_output"
    targets = {
        "heads": {"description": f"{ours} within {LAYOUT_RATIO}× of PyTorch's fused kernel at (1, 8, n, 64), {span}",
                  "limit": LAYOUT_RATIO, "ratios": fused["(1, 8, n, d)"]},
        "batch_heavy": {"description": f"{ours} within {LAYOUT_RATIO}× of PyTorch's fused kernel at the batch-heavy shape, "
                                       f"{span}",
                        "limit": LAYOUT_RATIO, "ratios": fused["batch-heavy"]},
        "causal_vs_torch": {"description": f"{ours} causal within {LAYOUT_RATIO}× of PyTorch's causal kernel at (1, 8, n, 64), "
                                           f"{span}",
                            "limit": LAYOUT_RATIO, "ratios": fused["(1, 8, n, d) causal"]},
        "causal_vs_own": {"description": f"{ours} causal at most {CAUSAL_OWN_RATIO}× its non-causal time at (1, 8, n, 64), "
                                         f"n >= {CAUSAL_FROM_N:,}",
                          "limit": CAUSAL_OWN_RATIO, "ratios": {n: own[n] for n in causal_ns}},
    }
    for target in targets.values():
        target["worst"] = max(target["ratios"].values())
        target["met"] = target["worst"] <= target["limit"]
        target["ratios"] = {str(n): ratio for n, ratio in target["ratios"].items()}
    targets["float16_vs_torch"] = {"description": f"{ours} float16/float32 time no worse than PyTorch's float16/float32, "
                                                  "same shapes",
                                   "ratios": float16, "met": all(entry["met"] for entry in float16.values())}
    for target in targets.values():
        worst = f" (worst {target['worst']:.2f}×)" if "worst" in target else ""
        print(f"target: {target['description']}: {verdict(target['met'])}{worst}")
    return targets


# (label, heads of q, heads of k and v, dtypes): the decode layouts. MHA: a K/V head per query head; GQA: 32 query
# heads share 8 K/V heads, groups of 4 (Mistral-7B's heads), with enable_gqa=True on both sides.
DECODE_LAYOUTS = [("decode (1, 8, 1, d)", 8, 8, (np.float32, np.float16)),
                  ("decode GQA (1, 32, 1, d), 8 K/V heads", 32, 8, (np.float32,))]


def measure_decode(n_ks: list[int], repeats: int, torch, rng: np.random.Generator, timing: Timing) -> list[dict]:
    """One query against n_k cached keys and values, (1, h, 1, d) against (1, h_kv, n_k, d): qkv.attention_output and
    PyTorch, interleaved."""
    functional, rows = torch.nn.functional, []
    for n_k in n_ks:
        for label, heads, kv_heads, dtypes in DECODE_LAYOUTS:
            gqa = heads != kv_heads
            for dtype in dtypes:
                q = rng.standard_normal((1, heads, 1, D), dtype=np.float32).astype(dtype)
                k, v = (rng.standard_normal((1, kv_heads, n_k, D), dtype=np.float32).astype(dtype) for _ in range(2))
                tq, tk, tv = (torch.from_numpy(x) for x in (q, k, v))

                def run_torch(tq=tq, tk=tk, tv=tv, gqa=gqa):
                    with torch.inference_mode():
                        return functional.scaled_dot_product_attention(tq, tk, tv, enable_gqa=gqa)

                functions = {"qkv_output": lambda q=q, k=k, v=v, gqa=gqa: attention_output(q, k, v, enable_gqa=gqa),
                             "torch": run_torch}
                np.testing.assert_allclose(functions["qkv_output"]().astype(np.float64),
                                           run_torch().numpy().astype(np.float64), rtol=1e-3,
                                           atol=2e-3 if dtype == np.float16 else 1e-5, err_msg=f"{label} n_k={n_k}")
                calls = {name: calibrate(f, timing) for name, f in functions.items()}
                samples: dict[str, list[float]] = {name: [] for name in functions}
                names = list(functions)
                for repeat in range(repeats):
                    for name in names[repeat % len(names):] + names[:repeat % len(names)]:  # a rotating order
                        samples[name].append(sample(functions[name], calls[name], timing)[1])
                inputs = attention_inputs(q, k, v, mask=None, scale=None, is_causal=False, enable_gqa=gqa)
                choice = int(torch._fused_sdp_choice(tq, tk, tv, enable_gqa=gqa))
                rows.append({"layout": label, "shape_q": list(q.shape), "shape_kv": list(k.shape), "n_k": n_k,
                             "dtype": np.dtype(dtype).name, "enable_gqa": gqa, "decode_path": decode_applies(inputs),
                             "torch_kernel": TORCH_KERNELS.get(choice, str(choice)), "torch_sdp_choice": choice,
                             **{f"{name}_calls_per_sample": count for name, count in calls.items()},
                             **{f"{name}_median_s": median(times) for name, times in samples.items()},
                             **{f"{name}_samples_s": times for name, times in samples.items()},
                             "qkv_output_over_torch": median(samples["qkv_output"]) / median(samples["torch"])})
        print(f"  decode at n_k = {n_k:,} done", flush=True)
    return rows


def decode_report(rows: list[dict], n_ks: list[int]) -> dict:
    """Print the decode table; the decode target (the MHA layout, float32 and float16)."""
    print("\ndecode, one query against n_k cached keys: qkv.attention_output / PyTorch (PyTorch's kernel in brackets):")
    cells = {(r["layout"], r["dtype"], r["n_k"]): f"{r['qkv_output_over_torch']:.2f}× ({r['torch_kernel'].split()[0]})"
             for r in rows}
    keys = list(dict.fromkeys((r["layout"], r["dtype"]) for r in rows))
    print(table(["layout", "dtype", *(f"n_k = {n:,}" for n in n_ks)],
                [[layout, dtype, *(cells[layout, dtype, n] for n in n_ks)] for layout, dtype in keys]))
    mha = DECODE_LAYOUTS[0][0]
    ratios = {f"{r['dtype']} n_k={r['n_k']}": r["qkv_output_over_torch"] for r in rows if r["layout"] == mha}
    target = {"description": f"qkv.attention_output within {DECODE_RATIO}× of PyTorch's fused kernel at decode, (1, 8, 1, 64) "
                             f"against n_k = {n_ks[0]:,} … {n_ks[-1]:,} keys, float32 and float16",
              "limit": DECODE_RATIO, "ratios": ratios, "worst": max(ratios.values())}
    target["met"] = target["worst"] <= DECODE_RATIO
    print(f"target: {target['description']}: {verdict(target['met'])} (worst {target['worst']:.2f}×)")
    return target


def sweep_block_sizes(ns: list[int], block_sizes: list[int], repeats: int, rng: np.random.Generator,
                      timing: Timing) -> list[dict]:
    """Time tiled_attention at each block size, interleaved like `measure`; one row per (n, block_size)."""
    rows = []
    for n in ns:
        q, k, v = (rng.standard_normal((n, D), dtype=np.float32) for _ in range(3))
        functions = {size: (lambda size=size: tiled_attention(q, k, v, block_size=size)) for size in block_sizes if size <= n}
        calls = {size: calibrate(f, timing) for size, f in functions.items()}
        samples: dict[int, list[float]] = {size: [] for size in functions}
        sizes = list(functions)
        for repeat in range(repeats):
            for size in sizes[repeat % len(sizes):] + sizes[:repeat % len(sizes)]:
                samples[size].append(sample(functions[size], calls[size], timing)[1])
        rows += [{"n": n, "block_size": size, "median_s": median(times), "samples_s": times} for size, times in samples.items()]
    return rows


def worst(ratios: dict[int, float]) -> tuple[int, float]:
    n = max(ratios, key=lambda n: ratios[n])
    return n, ratios[n]


def decode_part(args: argparse.Namespace, repeats: int, torch: Any, rng: np.random.Generator,
                timing: Timing) -> tuple[dict[str, Any], dict[str, Any]]:
    """The decode part of the results and its target, measured with its own load averages."""
    n_ks = QUICK_DECODE_NKS if args.quick else DECODE_NKS
    repeats = 1 if args.quick else min(repeats, LAYOUT_REPEATS)
    load = [round(x, 2) for x in os.getloadavg()]
    rows = measure_decode(n_ks, repeats, torch, rng, timing)
    with one_blas_thread() as pinned:  # what qkv's decode path does around its products, in the calling thread
        blas_threads = _openblas_call("get_num_threads")  # 1 where pinned; else OpenBLAS's own count (None: no OpenBLAS)
    part = {"n_ks": n_ks, "repeats": repeats, "results": rows,
            "torch_threads": torch.get_num_threads(), "qkv_decode_threads": blas_threads,
            "qkv_decode_blas_pinned": pinned,
            "threads_note": "torch.get_num_threads() at decode; qkv's decode path runs in the calling thread, its "
                            "products on the OpenBLAS threads one_blas_thread leaves (1 where it can set them)",
            "load_average_at_start": load, "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
            "note": "one query (1, h, 1, d) against (1, h_kv, n_k, d) keys and values, qkv.attention_output "
                    "(its decode path; the threads each side ran on are recorded beside)"}
    return part, decode_report(rows, n_ks)


def decode_only(args: argparse.Namespace, repeats: int, torch: Any, rng: np.random.Generator, timing: Timing) -> int:
    """--decode-only: re-measure the decode part into the results file, which keeps its other parts."""
    path = output_path(args, "attention_speed")
    if path is None or not path.exists():
        raise SystemExit(f"--decode-only puts the decode part into an existing results file; {path} does not exist: "
                         "run the whole benchmark first")
    results = json.loads(path.read_text(encoding="utf-8"))
    part, target = decode_part(args, repeats, torch, rng, timing)
    part["machine"] = machine_info()  # this part's own run; results["machine"] stays the run of the other parts
    part["machine"]["load_average_at_end"] = part["load_average_at_end"]
    results["decode"] = part
    results["targets"]["decode"] = target
    path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\ndecode part written to {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} (the other parts kept)")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=None, help="repeats per size (default 5; 1 with --quick)")
    p.add_argument("--decode-only", action="store_true",
                   help="measure only the decode part and put it into the existing results file, with its own machine "
                        "record (the other parts keep theirs)")
    args = p.parse_args(argv)
    import torch

    ns = QUICK_NS if args.quick else FULL_NS
    repeats = args.repeats or (1 if args.quick else 5)
    machine = machine_info()
    blas_threads = machine["numpy_blas"]["threads"] or machine["usable_cpus"] or 1
    torch.set_num_threads(blas_threads)
    torch_info = {
        "version": torch.__version__,
        "threads": torch.get_num_threads(),
        "interop_threads": torch.get_num_interop_threads(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "threads_note": f"torch.set_num_threads({blas_threads}) = the threads numpy's OpenBLAS uses",
    }
    print(f"attention time, d = {D}, float32, median of {repeats} interleaved repeat(s){' (--quick)' if args.quick else ''}")
    print(f"numpy {np.__version__} ({machine['numpy_blas']['name']} {machine['numpy_blas']['version']}, "
          f"{machine['numpy_blas']['threads']} threads, core {machine['numpy_blas']['core']}); "
          f"torch {torch.__version__} ({torch.get_num_threads()} threads, {torch_info['cpu_capability']}); "
          f"{machine['cpu_model']}, {machine['usable_cpus']} CPUs")
    if machine["environment"]:
        print(f"environment (recorded, not changed): {machine['environment']}")
    python_cap = min(PYTHON_MAX_N, max(ns))
    print(f"the pure-Python loop runs only for n <= {python_cap} (it takes seconds there and grows as n²)\n")

    rng = np.random.default_rng(0)
    timing = QUICK_TIMING if args.quick else FULL_TIMING
    if args.decode_only:
        return decode_only(args, repeats, torch, rng, timing)
    rows, results = [], []
    for n in ns:
        measured = measure(n, repeats, torch, rng, timing)
        for name, entry in measured.items():
            results.append({"n": n, "implementation": name, **entry})
        t = {name: entry["median_s"] for name, entry in measured.items()}
        rows.append([
            f"{n:,}",
            *(f"{t[name] * 1e3:.3g} ms" if name in t else "—" for name in ("qkv", "qkv_float16", "tiled", "torch", "python")),
            f"{t['qkv'] / t['torch']:.2f}×",
            f"{t['qkv_float16'] / t['qkv']:.2f}×",
            f"{t['tiled'] / t['torch']:.2f}×",
            f"{t['python'] / t['qkv']:,.0f}×" if "python" in t else "—",
            f"{t['qkv_causal'] / t['qkv']:.2f}×",
            f"{t['tiled_causal'] / t['tiled']:.2f}×",
        ])
        print(f"  n = {n:,} done", flush=True)
    print()
    print(table(["n", "qkv", "qkv float16", "tiled", "torch", "python", "qkv/torch", "float16/float32", "tiled/torch",
                 "python/qkv", "qkv causal/non-causal", "tiled causal/non-causal"], rows))

    layout_ns = QUICK_LAYOUT_NS if args.quick else LAYOUT_NS
    layout_rows = measure_layouts(layout_ns, 1 if args.quick else min(repeats, LAYOUT_REPEATS), torch, rng, timing)
    layout_targets = layout_report(layout_rows, layout_ns, timing.pause)
    decode, layout_targets["decode"] = decode_part(args, repeats, torch, rng, timing)

    sweep_ns, sweep_sizes = (QUICK_SWEEP_NS, QUICK_SWEEP_BLOCK_SIZES) if args.quick else (SWEEP_NS, SWEEP_BLOCK_SIZES)
    sweep = sweep_block_sizes(sweep_ns, sweep_sizes, 1 if args.quick else SWEEP_REPEATS, rng, timing)
    print(f"\ntiled_attention by block_size (median of {1 if args.quick else SWEEP_REPEATS} interleaved repeats; "
          f"the default is {DEFAULT_BLOCK_SIZE}):")
    sweep_rows = []
    for n in sweep_ns:
        times = {row["block_size"]: row["median_s"] for row in sweep if row["n"] == n}
        fastest = min(times.values())
        sweep_rows.append([f"{n:,}", *(f"{times[size] * 1e3:.3g} ms ({times[size] / fastest:.2f}×)" if size in times else "—"
                                       for size in sweep_sizes)])
    print(table(["n", *(f"block {size}" for size in sweep_sizes)], sweep_rows))

    medians = {(r["n"], r["implementation"]): r["median_s"] for r in results}
    in_range = [n for n in ns if TARGET_NS[0] <= n <= TARGET_NS[1]] or ns  # --quick: its own sizes
    where = "" if in_range[0] == TARGET_NS[0] else f" (--quick: checked at n = {', '.join(map(str, in_range))} instead)"
    speed_n, speed_ratio = worst({n: medians[(n, "qkv")] / medians[(n, "torch")] for n in in_range})
    half_n, half_ratio = worst({n: medians[(n, "qkv_float16")] / medians[(n, "qkv")] for n in in_range})
    best_sizes = {n: min((r for r in sweep if r["n"] == n), key=lambda r: r["median_s"])["block_size"] for n in sweep_ns}
    slowdown = {  # block size -> its worst time / the fastest time, over the swept n
        size: max(next(r["median_s"] for r in sweep if r["n"] == n and r["block_size"] == size)
                  / min(r["median_s"] for r in sweep if r["n"] == n)
                  for n in sweep_ns if any(r["n"] == n and r["block_size"] == size for r in sweep))
        for size in sorted({r["block_size"] for r in sweep})
    }
    chosen = min(size for size, ratio in slowdown.items() if ratio <= SWEEP_TOLERANCE)
    default_slowdown = slowdown.get(DEFAULT_BLOCK_SIZE)
    span = f"every n from {TARGET_NS[0]:,} to {TARGET_NS[1]:,}"
    targets = {
        "speed": {"description": f"2-D (n, 64): qkv within {TARGET_RATIO}× of PyTorch's math path at {span}", "n": speed_n,
                  "ns": in_range, "limit": TARGET_RATIO, "ratio": speed_ratio, "met": speed_ratio <= TARGET_RATIO},
        "float16": {"description": "2-D (n, 64): qkv float16/float32 time (PyTorch's own ratio is the limit; see float16_vs_torch)",
                    "n": half_n, "ns": in_range, "ratio": half_ratio, "torch_ratio_same_n": None, "met": None},
        **layout_targets,
    }
    print(f"\ntarget: {targets['speed']['description']}: {verdict(targets['speed']['met'])} "
          f"(worst qkv/torch = {speed_ratio:.2f}× at n = {speed_n:,}){where}")
    print(f"2-D float16/float32: worst {half_ratio:.2f}× at n = {half_n:,} (the target is PyTorch's own ratio, above)")
    fastest_text = ", ".join(f"{size} at n = {n:,}" for n, size in best_sizes.items())
    print(f"tiled default block_size {DEFAULT_BLOCK_SIZE}: "
          + ("not in this sweep" if default_slowdown is None else f"at most {default_slowdown:.2f}× the fastest")
          + f" (within {SWEEP_TOLERANCE}×: {verdict(default_slowdown is not None and default_slowdown <= SWEEP_TOLERANCE)}); "
          + f"the smallest size within {SWEEP_TOLERANCE}× in this run: {chosen} (fastest: {fastest_text})")

    write_results(output_path(args, "attention_speed"), {
        "benchmark": "attention_speed",
        "quick": args.quick,
        "d": D,
        "dtype": "float32",
        "ns": ns,
        "repeats": repeats,
        "python_max_n": python_cap,
        "statistic": "median of interleaved repeats; each sample averages calls_per_sample calls",
        "pause_s": timing.pause,
        "min_sample_s": timing.min_seconds,
        "pause_note": "sleep before every sample so the other library's spinning thread pool goes idle",
        "implementations": {
            "qkv": "qkv.scaled_dot_product_attention (validates inputs, returns output and weights)",
            "qkv_float16": "qkv.scaled_dot_product_attention on float16 copies of the inputs",
            "tiled": f"qkv.tiled_attention(block_size={DEFAULT_BLOCK_SIZE}), the default",
            "torch": "torch.nn.functional.scaled_dot_product_attention, CPU, inference_mode",
            "python": "pure-Python loops over rows, dot products and exp element by element",
            "qkv_causal": "qkv.scaled_dot_product_attention(is_causal=True)",
            "tiled_causal": f"qkv.tiled_attention(is_causal=True, block_size={DEFAULT_BLOCK_SIZE})",
        },
        "torch": torch_info,
        "results": results,
        "target": targets["speed"],
        "targets": targets,
        "layouts": {"ns": layout_ns, "repeats": 1 if args.quick else min(repeats, LAYOUT_REPEATS), "results": layout_rows,
                    "note": "torch_kernel from torch._fused_sdp_choice (0 = math, 1 = flash attention); batch-heavy = "
                            "(4, 32·(512/n)², n, d)"},
        "decode": decode,
        "tiled_default_block_size": DEFAULT_BLOCK_SIZE,
        "block_size_sweep": {"ns": sweep_ns, "block_sizes": sweep_sizes, "results": sweep,
                             "fastest": {str(n): size for n, size in best_sizes.items()},
                             "slowdown_vs_fastest": {str(size): ratio for size, ratio in slowdown.items()},
                             "tolerance": SWEEP_TOLERANCE, "smallest_within_tolerance": chosen,
                             "default_vs_fastest": default_slowdown},
        "machine": machine,
    })
    return 0


if __name__ == "__main__":
    run_main(main)
