"""The numbers of the page “延伸：O(n²) 瓶颈实测 / Beyond the article: the O(n²) bottleneck, measured”.

The online-softmax example and the KV cache are computed by `qkv`; the measurements come from the
committed benchmark results (`benchmarks/results/attention_memory.json`, `attention_speed.json`).
Every comparison the page's prose makes of them is either chosen in the page by a flag computed
here or checked here: re-measured results that no longer support a sentence stop the build naming it.

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> values(project)["online"]["bound"], values(project)["causal"]["share_1024"]
('1.5 \\\\times 10^{-14}', '56.25%')
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from functools import cache
from itertools import pairwise
from statistics import median
from typing import Any

import numpy as np

from qkv import blocks, kv_cache, kv_cache_bytes, online_softmax_steps
from qkv.blocks import block_rows, causal_work_share
from qkv.complexity import format_bytes
from qkv.examples import worked_example
from qkv.kv_cache import attention_kind
from qkv_site.project import Project
from qkv_site.results import load, repeats, series
from qkv_site.values.claims import Claims, noise
from qkv_site.values.formatting import bmatrix, number

PAGE = "beyond-quadratic.md"
KV_FIGURE_SEQ_LEN = 4096  # the KV-cache figure's one length for every model (figures/kv_cache_sizes.py)
KV_TABLE_SEQ_LEN = 4096  # the KV-cache table compares every model at this length
EXERCISE_SEQ_LEN = 32_768  # exercise 1: a 32K context
SIGNIFICANCE = 0.05  # a two-sided sign test over the interleaved rounds below this: a clear difference
CAUSAL_SHARE_NS = (1024, 4096)  # the lengths at which the prose states the causal kernel's share of the work
NEAR_SHARE = 0.15  # a measured causal/non-causal time within this of the computed share is "close to it"
# qkv / PyTorch within this of 1 is "level, within the noise": a median of 5 repeats moves by more than that between
# runs (the timing part's rounds went both ways at differences of 9-23 %), so no order is read from less.
LEVEL = 0.05
ABOUT = 1.25  # one time within this factor of another, either way, is "about as long"


# The measurements come from committed results, the same numbers on every machine; what is computed here from
# them is either exact (counts, bytes) or compared with margins far wider than rounding.
claims = Claims(PAGE)


def _n(n: int) -> str:
    return f"{n:,}"


def _ns(ns: list[int]) -> list[str]:
    """The lengths of a sentence, never none: the page joins them in its language."""
    if not ns:
        raise ValueError(f"{PAGE}: an empty list of lengths for a sentence")
    return [_n(n) for n in ns]


def _times(ratio: float) -> str:
    return f"{ratio:.2f}"


def _percent(fraction: float) -> str:
    return f"{fraction:.0%}"


def _range(values: list[float], write: Any) -> str:
    low, high = write(min(values)), write(max(values))
    # exact: strings
    return str(low if low == high else f"{low}–{high}")


def _exact_percent(fraction: float) -> str:
    return f"{fraction * 100:g}%"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


# Online softmax --------------------------------------------------------------------------------


@dataclass(frozen=True)
class StepRow:
    """One row of the online-softmax table: a query after one block of keys."""

    block: int
    key: str
    query: str
    score: str
    running_max: str
    correction: str
    new_term: str
    running_sum: str


@dataclass(frozen=True)
class SecondBlock:
    """What the second block does to one query's running max and sum."""

    query: str
    score: str
    old_max: str
    new_max: str
    raises_max: bool
    old_sum: str
    correction: str
    new_term: str
    new_sum: str


def _online() -> dict[str, Any]:
    example = worked_example()
    scores = example.scaled_scores  # (2, 2): 2 queries × 2 keys
    steps = online_softmax_steps(scores, block_size=1, v=example.v)
    rows = [StepRow(j, example.tokens[step.keys[0]], query, number(scores[i, step.keys[0]]), number(step.running_max[i]),
                    number(step.correction[i]), number(step.block_exps[i, 0]), number(step.running_sum[i]))
            for j, step in enumerate(steps, start=1) for i, query in enumerate(example.tokens)]
    first, second = steps
    second_block = [SecondBlock(query, number(scores[i, 1]), number(first.running_max[i]), number(second.running_max[i]),
                                bool(second.running_max[i] > first.running_max[i]), number(first.running_sum[i]),
                                number(second.correction[i]), number(second.block_exps[i, 0]), number(second.running_sum[i]))
                    for i, query in enumerate(example.tokens)]
    assert second.output is not None  # v was given
    weights_gap = float(np.abs(second.weights - example.weights).max())
    output_gap = float(np.abs(second.output - example.output).max())
    return {"scores": bmatrix(scores), "rows": rows, "second_block": second_block, "weights": bmatrix(second.weights),
            "output": bmatrix(second.output), **same_result(weights_gap, output_gap)}


def same_result(weights_gap: float, output_gap: float) -> dict[str, Any]:
    """The online softmax's weights and output against the step-by-step example's: the same up to rounding.

    Whether they are equal to the last bit depends on the machine (its `exp`, the order of its sums), so
    the page says only what holds everywhere: they differ by less than the rounding noise of numbers near 1.
    The bound is printed rounded up, so the sentence "less than" it holds whenever the check passes.

    >>> same_result(0.0, 2.2e-16)
    {'bound': '1.5 \\\\times 10^{-14}'}
    """
    bound = noise(1.0)  # weights and outputs of the example are numbers of order 1
    claims.require(max(weights_gap, output_gap) <= bound,
                   sentence="the online softmax gives the step-by-step example's weights and output, "
                   "up to floating-point rounding",
                   checked=f"largest differences: weights {weights_gap:.3g}, output {output_gap:.3g}")
    mantissa, exponent = rounded_up(bound)
    return {"bound": f"{mantissa} \\times 10^{{{exponent}}}"}


def rounded_up(x: float) -> tuple[str, int]:
    """`x` > 0 as a mantissa of two significant digits and a power of ten, rounded up: never below `x`.

    The float is read exactly (`Decimal`), so no rounding of the division can print less than `x`.

    >>> rounded_up(1.42e-14), rounded_up(9.96e-3), rounded_up(2.0e5)
    (('1.5', -14), ('1.0', -2), ('2.0', 5))
    """
    exact = Decimal(x)
    exponent = exact.adjusted()
    mantissa = exact.scaleb(-exponent).quantize(Decimal("0.1"), rounding=ROUND_CEILING)
    if mantissa >= 10:
        mantissa, exponent = Decimal("1.0"), exponent + 1
    return str(mantissa), exponent


# Memory ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemoryRow:
    n: str
    matrix: str
    naive: str
    tiled: str
    ratio: str


def memory_values(memory: dict[str, Any]) -> dict[str, Any]:
    """The memory table, what it shows (ordinary attention against one n×n matrix, tiled against n) and the figure's slopes."""
    rows = sorted(memory["results"], key=lambda row: row["n"])
    if len(rows) < 3:
        raise ValueError(f"attention_memory: {len(rows)} sequence lengths; the page compares at least 3")
    ns = [row["n"] for row in rows]
    per_matrix = [row["naive_peak_bytes"] / row["n_by_n_float32_bytes"] for row in rows]
    itemsize = np.dtype(memory["dtype"]).itemsize
    n_by_d = [n * memory["d"] * itemsize for n in ns]
    rest = [(row["naive_peak_bytes"] - row["n_by_n_float32_bytes"]) / size for row, size in zip(rows, n_by_d, strict=True)]
    shrinking = all(b <= a for a, b in pairwise(per_matrix))
    one_matrix = max(per_matrix) < 2 and min(per_matrix) >= 1 and shrinking
    claims.require(one_matrix or max(per_matrix) >= 2, sentence="ordinary attention's peak is under two n×n matrices, or at "
                                                                "least two",
                   checked=f"peak / one n×n matrix = {[round(x, 3) for x in per_matrix]}")
    if one_matrix:
        claims.require(max(rest) / min(rest) < 1.5, sentence="the rest grows linearly with n, about the same number of n×d "
                                                             "arrays at every n",
                       checked=f"(peak - n×n) / (n×d) = {[round(x, 2) for x in rest]} within a factor 1.5")

    tiled = [row["tiled_peak_bytes"] for row in rows]
    last, before = rows[-1], rows[-2]
    doubling = last["tiled_peak_bytes"] / before["tiled_peak_bytes"]
    output_share = n_by_d[-1] / last["tiled_peak_bytes"]
    claims.require(last["n"] == 2 * before["n"] and 1.5 <= doubling <= 2.5 and output_share > 0.5 and tiled == sorted(tiled),
                   sentence="Tiled attention grows only linearly with n: the last doubling of n about doubles its peak, "
                            "mostly the n×d output",
                   checked=f"last doubling of the tiled peak {doubling:.3f} in [1.5, 2.5], output share {output_share:.3f} "
                           "> 0.5, "
                   "peaks increasing")

    n_array = np.array(ns, dtype=float)
    naive = np.array([row["naive_peak_bytes"] for row in rows], dtype=float)
    tiled_array = np.array(tiled, dtype=float)
    half = len(rows) // 2  # the slopes of the larger half of the n: where each line has its final slope
    naive_slope = float(np.polyfit(np.log2(n_array[half:]), np.log2(naive[half:]), 1)[0])
    tiled_slope = float(np.polyfit(np.log2(n_array[half:]), np.log2(tiled_array[half:]), 1)[0])
    gap = naive / tiled_array
    claims.require(1.8 <= naive_slope <= 2.2 and 0.8 <= tiled_slope <= 1.2 and bool(np.all(np.diff(gap) > 0)),
                   sentence="the figure: ordinary attention's peak grows with the square of n, tiled attention only "
                            "linearly, the gap widens",
                   checked=f"log-log slopes over n ≥ {ns[half]}: ordinary {naive_slope:.2f} in [1.8, 2.2], "
                   f"tiled {tiled_slope:.2f} in [0.8, 1.2]; "
                   f"ordinary / tiled increasing: {[round(x, 1) for x in gap]}")
    return {
        "rows": [MemoryRow(_n(row["n"]), format_bytes(row["n_by_n_float32_bytes"]), format_bytes(row["naive_peak_bytes"]),
                           format_bytes(row["tiled_peak_bytes"]), f"{row['ratio']:.2%}") for row in rows],
        "cpus": str(memory["machine"]["usable_cpus"]), "cpu_model": memory["machine"]["cpu_model"],
        "one_matrix": one_matrix, "per_matrix": _range(per_matrix, _times), "rest": _range(rest, lambda x: f"{x:.1f}"),
        "block_size": _n(memory["block_size"]), "before_n": _n(before["n"]), "last_n": _n(last["n"]),
        "doubling": f"{doubling:.2f}", "output_share": _percent(output_share), "d": str(memory["d"]),
        "from_n": _n(ns[half]), "naive_slope": f"{naive_slope:.2f}", "tiled_slope": f"{tiled_slope:.2f}",
    }


# Time: the 2-D table, tiled against qkv, the figure ---------------------------------------------


@dataclass(frozen=True)
class TimeRow:
    n: str
    qkv: str
    tiled: str
    torch: str
    python: str
    qkv_over_torch: str


@dataclass(frozen=True)
class TiledGroup:
    """The lengths at which tiled attention compared alike with qkv, round by round.

    `verdict` is "slower" or "faster" when a two-sided sign test over the rounds is below
    `SIGNIFICANCE`; "every_slower" or "every_faster" when every round went one way but there were too
    few rounds for the sign test to reach it; "mixed" when the rounds went both ways.
    """

    verdict: str
    ns: list[str]
    margin: str  # by how much the medians differ
    wins: str  # slower/faster: at least this many of the rounds went that way
    slower_rounds: list[str]  # mixed: at each n, the rounds in which tiled was slower
    several: bool


def _speed_rows(speed: dict[str, Any]) -> dict[tuple[int, str], dict[str, Any]]:
    return {(row["n"], row["implementation"]): row for row in speed["results"]}


def _sign_test(slower: int, faster: int) -> float:
    """Two-sided sign test: how likely a split at least this uneven is if neither is faster."""
    rounds = slower + faster
    if rounds == 0:
        return 1.0
    tail = sum(math.comb(rounds, i) for i in range(min(slower, faster) + 1)) / float(2**rounds)
    return min(1.0, 2 * tail)


def tiled_comparison(speed: dict[str, Any]) -> list[dict[str, Any]]:
    """For each n, tiled against qkv: the ratio of medians and, round by round, which was faster."""
    rows = _speed_rows(speed)
    compared = []
    for n in speed["ns"]:
        tiled, qkv = rows[(n, "tiled")]["samples_s"], rows[(n, "qkv")]["samples_s"]
        if len(tiled) != len(qkv):
            raise ValueError(f"attention_speed, n = {n}: {len(tiled)} tiled samples but {len(qkv)} qkv samples; "
                             "the page compares them round by round")
        slower = sum(t > q for t, q in zip(tiled, qkv, strict=True))
        faster = sum(t < q for t, q in zip(tiled, qkv, strict=True))
        ratio = median(tiled) / median(qkv)
        p = _sign_test(slower, faster)
        if p < SIGNIFICANCE:
            verdict = "slower" if slower > faster else "faster"
        elif slower == len(tiled) or faster == len(tiled):  # every round one way, too few rounds to tell
            verdict = "every_slower" if slower else "every_faster"
        else:
            verdict = "mixed"
        compared.append({"n": n, "ratio": ratio, "slower": slower, "faster": faster, "rounds": len(tiled), "verdict": verdict})
    return compared


def tiled_block_size(speed: dict[str, Any]) -> int:
    """The block size the timing run gave `tiled_attention`, as its results record it."""
    match = re.search(r"block_size=(\d+)", speed["implementations"]["tiled"])
    if not match:
        raise ValueError(f"attention_speed: no block_size in the tiled implementation {speed['implementations']['tiled']!r}")
    return int(match.group(1))


def _slope(ns: list[int], seconds: list[float]) -> float:
    return float(np.polyfit(np.log2(ns), np.log2(seconds), 1)[0])


def timing_values(speed: dict[str, Any]) -> dict[str, Any]:
    """The 2-D timing table, tiled against qkv at every n, and the time figure's slopes."""
    counts = {name: count for name, count in repeats(speed).items() if name in ("qkv", "tiled", "torch", "python")}
    most = max(counts.values())
    times = {name: dict(zip(*series(speed, name), strict=True)) for name in ("qkv", "tiled", "torch", "python")}
    def cell(name: str, n: int) -> str:
        return _ms(times[name][n]) if n in times[name] else "—"

    rows = [TimeRow(_n(n), cell("qkv", n), cell("tiled", n), cell("torch", n), cell("python", n),
                    f"{times['qkv'][n] / times['torch'][n]:.2f}") for n in speed["ns"]]

    block = tiled_block_size(speed)
    compared = tiled_comparison(speed)
    ns = [row["n"] for row in compared]
    groups = []
    for verdict in ("slower", "faster", "every_slower", "every_faster", "mixed"):
        group = [row for row in compared if row["verdict"] == verdict]
        if not group:
            continue
        if verdict == "mixed":
            claims.require(all(0 < row["slower"] < row["rounds"] for row in group),
                           sentence="at these n tiled attention was slower in some rounds and faster in others: the difference "
                                    "is within the timing noise",
                           checked=f"{[(row['n'], row['slower'], row['faster']) for row in group]}")
            wins = ""
        elif verdict.startswith("every_"):
            way = verdict.removeprefix("every_")
            # exact: counts of rounds
            claims.require(all(row[way] == row["rounds"] for row in group),
                           all(_sign_test(row["rounds"], 0) >= SIGNIFICANCE for row in group),
                           # exact: booleans
                           all((row["ratio"] > 1) == (way == "slower") for row in group),
                           sentence=f"at these n tiled attention was {way} than qkv in every round, but there were too few "
                                    "rounds for a two-sided sign test to reach the significance level",
                           checked=f"{[(row['n'], row['slower'], row['faster'], round(row['ratio'], 3)) for row in group]}")
            wins = str(group[0]["rounds"])
        else:
            # exact: booleans
            claims.require(all((row["ratio"] > 1) == (verdict == "slower") for row in group),
                           sentence=f"at these n tiled attention was clearly {verdict} than qkv, by the medians as by the rounds",
                           checked=f"{[(row['n'], round(row['ratio'], 3)) for row in group]}")
            wins = str(min(row[verdict] for row in group))
        margin = _range([abs(row["ratio"] - 1) for row in group], _percent)
        groups.append(TiledGroup(verdict, _ns([row["n"] for row in group]), margin, wins, [str(row["slower"]) for row in group],
                                 len(group) > 1))
    rounds = compared[0]["rounds"]
    best_p = _sign_test(rounds, 0)  # the smallest p-value these rounds can give: every round one way
    # The time figure: where the tiled line lies below qkv's, and whether the rounds there went both ways.
    below = [row for row in compared if row["ratio"] < 1]
    above = [row for row in compared if row["ratio"] > 1]
    below_in_noise = bool(below) and bool(above) and len(below) < len(above) and all(row["verdict"] == "mixed" for row in below)
    # The caption then says, n by n in increasing order, how the rounds went: both ways, every round slower, or clearly
    # slower (a run of consecutive n is one group; the first n's group says "up to n = …" when it starts the list).
    runs: list[dict[str, Any]] = []
    for row in compared:
        if runs and runs[-1]["verdict"] == row["verdict"]:  # exact: strings
            runs[-1]["n"].append(row["n"])
        else:
            runs.append({"verdict": row["verdict"], "n": [row["n"]]})
    claims.require(not below_in_noise or all(run["verdict"] in ("mixed", "every_slower", "slower") for run in runs),
                   sentence="where the tiled line lies above qkv's, tiled attention was slower in every round, clearly slower, "
                            "or the rounds went both ways",
                   checked=f"{[(run['verdict'], run['n']) for run in runs]}")
    caption_runs = [{"verdict": run["verdict"], "ns": _ns(run["n"]), "up_to": i == 0 and len(run["n"]) > 1,
                     "last": _n(run["n"][-1])} for i, run in enumerate(runs)]
    largest = compared[-1]
    itemsize = np.dtype(speed["dtype"]).itemsize

    lines = {name: series(speed, name) for name in ("qkv", "tiled", "torch", "python")}
    lines = {name: line for name, line in lines.items() if line[0]}
    rising = all(all(b > a for a, b in pairwise(seconds)) for _, seconds in lines.values())
    claims.require(rising, sentence="the time figure: every implementation's time rises with n",
                   checked="median times increase with n")
    claims.require(len(lines) == 4 and "python" in lines, sentence="the time figure draws four implementations",
                   checked=f"{sorted(lines)}")
    fast = ["qkv", "tiled", "torch"]
    line_ns = lines["qkv"][0]
    start = next((i for i in range(len(line_ns) - 2)
                  if all(1.7 <= _slope(lines[name][0][i:], lines[name][1][i:]) <= 2.3 for name in fast)), None)
    claims.require(start is not None, sentence="qkv, tiled and PyTorch run parallel to n² over three or more of the measured n",
                   checked="they never do: the time figure's caption has no true sentence about their slopes")
    assert start is not None
    slopes = [_slope(lines[name][0][start:], lines[name][1][start:]) for name in fast]
    python_slower = [times["python"][n] / times["qkv"][n] for n in lines["python"][0]]
    claims.require(min(python_slower) > 10, sentence="the pure-Python loop is many times slower than qkv",
                   checked=f"pure Python / qkv = {python_slower}")
    return {
        "repeats": str(most), "fewer": [{"name": name, "count": str(count)} for name, count in counts.items() if count < most],
        "rows": rows,
        "rounds": str(compared[0]["rounds"]), "block_size": _n(block), "one_tile": [_n(n) for n in ns if n <= block],
        "many": [_n(n) for n in ns if n > block],
        "tiles": [_n(math.ceil(n / block) ** 2) for n in ns if n > block], "groups": groups,
        "explain_faster": largest["verdict"] == "faster" and largest["n"] > block,
        "largest_n": _n(largest["n"]), "largest_matrix": format_bytes(largest["n"] ** 2 * itemsize),
        "tile_bytes": format_bytes(block**2 * itemsize), "block": str(block),
        "d": str(speed["d"]), "slope_from": _n(line_ns[start]), "slopes": _range(slopes, lambda x: f"{x:.1f}"),
        "tiled_above": all(row["ratio"] > 1 for row in compared), "tiled_below": all(row["ratio"] < 1 for row in compared),
        "tiled_below_ns": [_n(row["n"]) for row in below], "tiled_below_in_noise": below_in_noise, "caption_runs": caption_runs,
        "sign_test_best_p": f"{best_p:.3g}", "sign_test_best_fraction": f"2/2^{{{rounds}}}",
        "significance": _percent(SIGNIFICANCE),
        "sign_test_can_decide": best_p < SIGNIFICANCE,
        "python_slower": _range(python_slower, lambda x: f"{x:,.0f}"),
    }


# Causal block skipping --------------------------------------------------------------------------


def tiled_causal_share(n: int, block_size: int) -> float:
    """The share of the n·n scores `tiled_attention(is_causal=True)` computes: the tiles it does not skip.

    It stops each block of queries at its last query's key, so it computes the tiles on and below
    the diagonal: with T tiles a side, T·(T+1)/2 of T² (a single tile is computed whole).

    >>> tiled_causal_share(4096, 1024), tiled_causal_share(1024, 1024)
    (0.625, 1.0)
    """
    computed = 0
    for q0 in range(0, n, block_size):
        q1 = min(q0 + block_size, n)
        computed += (q1 - q0) * q1  # keys 0 .. q1 - 1, in tiles of block_size
    return computed / (n * n)


@dataclass(frozen=True)
class CausalRow:
    n: str
    qkv_share: str
    qkv_ratio: str
    tiled_share: str
    tiled_ratio: str


def causal_values(speed: dict[str, Any]) -> dict[str, Any]:
    """Why causal attention does about half the work (computed) and how much less time it took (measured, 2-D)."""
    times = _speed_rows(speed)
    block = tiled_block_size(speed)
    ns = speed["ns"]
    qkv_share = {n: causal_work_share(n, n) for n in ns}
    tiled_share = {n: tiled_causal_share(n, block) for n in ns}
    qkv_ratio = {n: times[(n, "qkv_causal")]["median_s"] / times[(n, "qkv")]["median_s"] for n in ns}
    tiled_ratio = {n: times[(n, "tiled_causal")]["median_s"] / times[(n, "tiled")]["median_s"] for n in ns}
    rows = [CausalRow(_n(n), _exact_percent(qkv_share[n]), _times(qkv_ratio[n]), _exact_percent(tiled_share[n]),
                      _times(tiled_ratio[n])) for n in ns]
    for n in CAUSAL_SHARE_NS:
        claims.require(causal_work_share(n, n) < 0.6, sentence=f"at n = {n:,} the causal kernel computes little more than "
                                                               "half the scores",
                       checked=f"causal_work_share = {causal_work_share(n, n):.4f}")
    one_tile = [n for n in ns if n <= block]
    skipping = [n for n in ns if tiled_share[n] < 1]
    claims.require(all(tiled_share[n] == 1 for n in one_tile) and bool(skipping),
                   sentence="tiled attention skips tiles only when there are several", checked=f"tiled shares {tiled_share}")
    # The kernel's causal blocks: at most n/8 rows, but never fewer than its minimum, which at small n is more than n/8.
    rows_at = {n: block_rows(n, n, is_causal=True) for n in ns}
    min_rows = block_rows(1, 1, is_causal=True)  # the kernel's floor: n // 8 is 0 here
    floor_ns = [n for n in ns if rows_at[n] > n // 8]
    # exact: row counts are integers
    claims.require(bool(floor_ns), all(rows_at[n] == min_rows and n % min_rows == 0 for n in floor_ns),
                   all(rows_at[n] <= n // 8 for n in ns if n not in floor_ns),
                   sentence="with a causal mask a block has at most n/8 rows, but never fewer than the kernel's minimum, "
                            "which is more than n/8 at the smallest n",
                   checked=f"rows per block {rows_at}, minimum {min_rows}")
    # The measured side: from which n on the causal call took less time, for each of the two.
    small = [n for n in ns if n < CAUSAL_SHARE_NS[0]]
    qkv_slower_small = [n for n in small if qkv_ratio[n] > 1]
    full_blocks = {n: math.ceil(n / block_rows(n, n, is_causal=False)) for n in small}
    causal_blocks = {n: math.ceil(n / rows_at[n]) for n in small}
    claims.require(all(full_blocks[n] == 1 < causal_blocks[n] for n in qkv_slower_small),
                   sentence="at the small n where the causal call was slower, the full call is one block and the causal "
                            "call several",
                   checked=f"full {full_blocks}, causal {causal_blocks}")
    large = [n for n in ns if n >= CAUSAL_SHARE_NS[0]]
    qkv_not_faster = [n for n in large if qkv_ratio[n] >= 1]
    tiled_not_faster = [n for n in skipping if tiled_ratio[n] >= 1]
    last = ns[-1]
    return {
        "rows": rows, "share_1024": _exact_percent(causal_work_share(1024, 1024)),
        "share_4096": _exact_percent(causal_work_share(4096, 4096)),
        "rows_1024": _n(block_rows(1024, 1024, is_causal=True)), "rows_4096": _n(block_rows(4096, 4096, is_causal=True)),
        "from_n": _n(CAUSAL_SHARE_NS[0]),
        "min_rows": _n(min_rows), "floor": [{"n": _n(n), "fraction": f"n/{n // min_rows}"} for n in floor_ns],
        "floor_share": [_exact_percent(qkv_share[n]) for n in floor_ns],
        "qkv_slower_small": [_n(n) for n in qkv_slower_small],
        "qkv_slower_small_range": _range([qkv_ratio[n] for n in qkv_slower_small], _times) if qkv_slower_small else "",
        "qkv_slower_small_all": len(qkv_slower_small) == len(small),
        "causal_blocks_small": _range([causal_blocks[n] for n in qkv_slower_small], str) if qkv_slower_small else "",
        "tiled_block": _n(block), "tiled_one_tile": [_n(n) for n in one_tile], "tiled_skipping": _ns(skipping),
        "tiled_skip_shares": [_exact_percent(tiled_share[n]) for n in skipping],
        "n_small": _n(CAUSAL_SHARE_NS[0]), "n_large": _n(CAUSAL_SHARE_NS[1]),
        "qkv_faster_from": not qkv_not_faster, "qkv_not_faster": [_n(n) for n in qkv_not_faster],
        "tiled_faster_skipping": not tiled_not_faster, "tiled_not_faster": [_n(n) for n in tiled_not_faster],
        "last_n": _n(last), "qkv_last_ratio": _times(qkv_ratio[last]), "qkv_last_share": _exact_percent(qkv_share[last]),
        "qkv_near_share": abs(qkv_ratio[last] - qkv_share[last]) <= NEAR_SHARE,
        "tiled_last_ratio": _times(tiled_ratio[last]), "tiled_last_share": _exact_percent(tiled_share[last]),
        "tiled_near_share": abs(tiled_ratio[last] - tiled_share[last]) <= NEAR_SHARE,
    }


# Layouts: qkv against the kernel PyTorch really runs --------------------------------------------


@dataclass(frozen=True)
class LayoutRow:
    layout: str  # as the benchmark names it; the page writes the shape
    shape: str
    dtype: str
    is_causal: bool
    large_scores: bool  # q and k scaled up past the bound of attention_output's key-block path
    flash: bool  # PyTorch ran its fused flash kernel at every n (else its unfused math path at every n)
    ratios: list[str]  # qkv.attention_output / PyTorch at each n of the layouts part


def order(ratio: float) -> str:
    """qkv's time over PyTorch's read as an order: "slower", "faster", or "level" within `LEVEL` of 1.

    The ratios are measurements read from the committed results, the same numbers on every machine, and the band is
    far wider than any rounding.

    >>> order(1.10), order(0.98), order(0.31)
    ('slower', 'level', 'faster')
    """
    return "slower" if ratio > 1 + LEVEL else "faster" if ratio < 1 - LEVEL else "level"


def two_d_orders(cells: list[dict[str, Any]], speed: dict[str, Any]) -> dict[str, Any]:
    """The 2-D float32 sentence: qkv against PyTorch's math path, measured in two parts of the benchmark.

    The layouts part times `attention_output`, the timing table `scaled_dot_product_attention`, each against
    the same PyTorch call; PyTorch's own time differs between the two parts (7.19 and 3.22 ms at n = 1,024
    in the committed results). So a cell is called faster or slower only when both parts give that order,
    each beyond `LEVEL`; otherwise neither is clearly faster there."""
    times = _speed_rows(speed)
    table = {cell["n"]: times[(cell["n"], "qkv")]["median_s"] / times[(cell["n"], "torch")]["median_s"] for cell in cells}
    verdicts = []
    for cell in cells:
        ours, theirs = order(cell["qkv_output_over_torch"]), order(table[cell["n"]])
        verdicts.append(ours if ours == theirs != "level" else "unclear")  # exact: strings
    groups = []  # the layouts part's ratios, by the order they show there
    for way in ("slower", "level", "faster"):
        group = [cell for cell in cells if order(cell["qkv_output_over_torch"]) == way]  # exact: strings
        if group:
            groups.append({"ns": _ns([cell["n"] for cell in group]),
                           "range": _range([cell["qkv_output_over_torch"] for cell in group], _times)})
    unclear = [cell for cell, verdict in zip(cells, verdicts, strict=True) if verdict == "unclear"]
    opposite = all({order(cell["qkv_output_over_torch"]), order(table[cell["n"]])} == {"slower", "faster"}
                   for cell in unclear)
    return {
        "two_d_slower_everywhere": all(verdict == "slower" for verdict in verdicts),
        "two_d_faster_everywhere": all(verdict == "faster" for verdict in verdicts),
        "two_d_range": _range([cell["qkv_output_over_torch"] for cell in cells], _times),
        "two_d_groups": groups,
        "two_d_unclear_ns": [_n(cell["n"]) for cell in unclear],
        "two_d_unclear_table": [_times(table[cell["n"]]) for cell in unclear],
        "two_d_unclear_opposite": opposite,
        # exact: strings
        **{f"two_d_{way}_ns": [_n(cell["n"]) for cell, verdict in zip(cells, verdicts, strict=True) if verdict == way]
           for way in ("slower", "faster")},
    }


def layout_values(speed: dict[str, Any]) -> dict[str, Any]:
    """qkv / PyTorch for each layout, with the kernel PyTorch ran; and the float16/float32 ratios beside PyTorch's.

    The comparison is like for like: `qkv.attention_output` returns the output alone, as PyTorch does.
    What keeping the weights costs on top (`scaled_dot_product_attention`) is its own sentence."""
    part = speed["layouts"]
    ns = part["ns"]
    found = {(row["layout"], row["dtype"], row["n"]): row for row in part["results"]}
    keys = list(dict.fromkeys((row["layout"], row["dtype"]) for row in part["results"]))
    rows = []
    for layout, dtype in keys:
        cells = [found[(layout, dtype, n)] for n in ns]
        choices = {cell["torch_sdp_choice"] for cell in cells}
        claims.require(choices in ({0}, {1}), sentence=f"PyTorch ran one kernel, math or flash, for {layout} {dtype} at "
                                                       "every n", checked=f"{choices}")
        shape = ", ".join("n" if i == len(cells[0]["shape"]) - 2 else "d" if i == len(cells[0]["shape"]) - 1
                          else str(size) for i, size in enumerate(cells[0]["shape"]))
        if layout == "batch-heavy":  # as many scores as (4, 32, 512, d), at least one head: h = 32, 8, 2, 1
            shape = "4, h, n, d"
        # exact: a factor the benchmark sets, read from its results
        large = cells[0]["qk_factor"] != 1.0
        # exact: booleans
        claims.require(all(cell["key_blocks"] != large for cell in cells),
                       sentence=f"attention_output took its {'row-maximum' if large else 'key-block'} path for {layout} "
                                f"{dtype} at every n",
                       checked=f"{[cell['key_blocks'] for cell in cells]}")
        rows.append(LayoutRow(layout, f"({shape})", dtype, bool(cells[0]["is_causal"]), large, choices == {1},
                              [_times(cell["qkv_output_over_torch"]) for cell in cells]))
    two_d = [found[("2-D", "float32", n)] for n in ns]
    flash = [found[(layout, "float32", n)] for layout, dtype in keys if layout != "2-D" and dtype == "float32" for n in ns]
    claims.require(all(cell["torch_sdp_choice"] == 0 for cell in two_d) and all(cell["torch_sdp_choice"] == 1 for cell in flash),
                   sentence="PyTorch takes its math path for 2-D inputs and its fused flash kernel for (batch, heads, n, d)")
    flash_ratios = [cell["qkv_output_over_torch"] for cell in flash]
    shapes = {layout: row.shape for layout, row in ((row.layout, row) for row in rows)}
    by_order = {way: [cell for cell in flash if order(cell["qkv_output_over_torch"]) == way]  # exact: strings
                for way in ("slower", "level", "faster")}
    majority = "slower" if len(by_order["slower"]) > len(by_order["faster"]) else "faster"
    others = len(flash) - len(by_order[majority])
    claims.require(len(by_order[majority]) > others,
                   sentence=f"on 4-D inputs qkv was {majority} than PyTorch's fused kernel in most cells, the others named",
                   checked=f"{flash_ratios}, level within {LEVEL:.0%} of 1")
    two_d_sentence = two_d_orders(two_d, speed)
    weights_cost = [(cell["n"], cell["qkv_median_s"] / cell["qkv_output_median_s"]) for cell in flash]  # with / without
    claims.require(len(ns) > 1, sentence="the weights' cost is said at the largest n and at the smaller ones",
                   checked=f"ns = {ns}")
    # exact: lengths are integers
    largest = [ratio for n, ratio in weights_cost if n == ns[-1]]
    smaller = [ratio for n, ratio in weights_cost if n != ns[-1]]  # exact: as above
    batch_heavy = [found[("batch-heavy", "float32", n)]["shape"][1] for n in ns]
    half = [(label, n) for label in ("2-D", "(1, 8, n, d)") for n in ns]
    float16 = {key: (found[(key[0], "float16", key[1])]["qkv_output_median_s"]
                     / found[(key[0], "float32", key[1])]["qkv_output_median_s"],
                     found[(key[0], "float16", key[1])]["torch_median_s"] / found[(key[0], "float32", key[1])]["torch_median_s"])
               for key in half}
    # exact: a factor the benchmark sets, read from its results
    standard = [row["score_bound"] for row in part["results"] if row["qk_factor"] == 1.0]
    large_rows = [row for row in part["results"] if row["qk_factor"] != 1.0]  # exact: as above
    claims.require(bool(large_rows) and len({row["qk_factor"] for row in large_rows}) == 1,
                   sentence="one row with q and k scaled up, by one factor",
                   checked=f"{[row['qk_factor'] for row in large_rows]}")
    large_bound = min(row["score_bound"] for row in large_rows)
    claims.require(max(standard) <= blocks.SCORE_BOUND < large_bound,
                   sentence="the standard inputs' bound is within the limit and the large ones' past it",
                   checked=f"{max(standard)}, {large_bound}, limit {blocks.SCORE_BOUND}")
    return {
        "ns": _ns(ns), "rows": rows, "repeats": str(part["repeats"]),
        "bound_limit": f"{blocks.SCORE_BOUND:g}", "block_rows": _n(blocks.OUTPUT_ROWS),
        "causal_block_rows": _n(blocks.OUTPUT_CAUSAL_ROWS),
        "block_keys": _n(blocks.OUTPUT_KEYS), "standard_bound": f"{max(standard):.1f}", "large_bound": f"{large_bound:.0f}",
        "large_factor": f"{large_rows[0]['qk_factor']:g}", "large_factor_squared": f"{large_rows[0]['qk_factor'] ** 2:g}",
        "level": _percent(LEVEL),
        "flash_slower_everywhere": len(by_order["slower"]) == len(flash),
        "flash_faster_everywhere": len(by_order["faster"]) == len(flash),
        "flash_range": _range(flash_ratios, _times), **two_d_sentence,
        "flash_cells": str(len(flash)), "flash_majority_count": str(len(by_order[majority])),
        "flash_qkv_mostly_slower": majority == "slower",
        "flash_majority_range": _range([cell["qkv_output_over_torch"] for cell in by_order[majority]], _times),
        **{f"flash_{kind}": [{"shape": shapes[cell["layout"]], "causal": bool(cell["is_causal"]),
                              "large_scores": cell["qk_factor"] != 1.0,  # exact: a factor the benchmark sets
                              "n": _n(cell["n"]), "ratio": _times(cell["qkv_output_over_torch"])}
                             for cell in by_order[way]]
           for kind, way in (("level_cells", "level"), ("opposite_cells", "faster" if majority == "slower" else "slower"))},
        "weights_largest_n": _n(ns[-1]), "weights_largest_range": _range(largest, _times),
        "weights_smaller_range": _range(smaller, _times),
        "batch_heavy_heads": ", ".join(str(heads) for heads in batch_heavy),
        "batch_heavy_scores": ", ".join(f"{4 * heads * n * n / 1e6:.1f}" for heads, n in zip(batch_heavy, ns, strict=True)),
        "float16_rows": [{"layout": label, "n": _n(n), "qkv": _times(float16[(label, n)][0]),
                          "torch": _times(float16[(label, n)][1]), "shape": "(n, d)" if label == "2-D" else "(1, 8, n, d)"}
                         for label, n in half],
        "float16_qkv_slower": all(ours > 1 for ours, _ in float16.values()),
        "float16_range": _range([ours for ours, _ in float16.values()], _times),
    }


# KV cache --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelRow:
    name: str
    hypothetical: bool
    short_name: str
    layers: str
    heads: str
    kv_heads: str
    head_dim: str
    kind: str
    per_token: str
    total: str
    source_zh: str
    source_en: str


# qkv.kv_cache cites each shape in English; the Chinese page says the same in Chinese, phrase by phrase.
_SOURCE_ZH = (
    (r"(\w+(?: \d+B?)?) paper \(([^)]+)\), Table (\d+): ", r"\1 论文（\2）表 \3："),
    (r"layers, heads, dimension", "层数、头数、维度"),
    (r" \(([\d.]+B): (\d+) layers, (\d+) heads, dimension (\d+)\)", r"（\1：\2 层、\3 个头、维度 \4）"),
    (r"context length, GQA", "上下文长度、是否用 GQA"),
    (r" \(([\d.]+B): no GQA\)", r"（\1：不用 GQA）"),
    (r" \(([\d.]+B): GQA\)", r"（\1：用 GQA）"),
    (r"hypothetical: (\S+) with a single K/V head", r"假想：\1 只留一个 K/V 头"),
    (r"(\d+) K/V heads: (\w+) in (\S+)'s config\.json", r"\1 个 K/V 头：\3 的 config.json 里的 \2"),
    (r"; ", "；"),
    (r", ", "，"),
)
_NAMES_IN_SOURCES = {"et", "al", "config", "json", "meta", "llama", "hf"}  # lowercase words a citation may keep


def model_source_zh(source: str) -> str:
    """Where a model shape's numbers come from (`ModelShape.source`), in Chinese.

    >>> model_source_zh("hypothetical: Llama-2-7B with a single K/V head")
    '假想：Llama-2-7B 只留一个 K/V 头'
    """
    text = source
    for pattern, replacement in _SOURCE_ZH:
        text = re.sub(pattern, replacement, text)
    left = [word for word in re.findall(r"(?<!\w)[A-Za-z][A-Za-z_]*", text)
            if (word.islower() and "_" not in word and word not in _NAMES_IN_SOURCES) or word == "Table"]
    if left:
        raise ValueError(f"{PAGE}: the model source {source!r} has English words left in Chinese: {left}; "
                         "add the phrase to _SOURCE_ZH in qkv_site/pages/beyond_quadratic.py")
    return text


def _exercise_row(layers: int, heads: int, kv_heads: int, head_dim: int, actual: int, is_actual: bool) -> dict[str, Any]:
    """Exercise 1: the cache of one choice of K/V heads, against the one the model actually has."""
    size = kv_cache_bytes(layers, heads, kv_heads, head_dim, seq_len=EXERCISE_SEQ_LEN)
    return {"kind": attention_kind(heads, kv_heads), "kv_heads": str(kv_heads), "plural": kv_heads > 1,
            "size": format_bytes(size), "times": f"{size / actual:g}", "actual": is_actual}


def kv_cache_values() -> dict[str, Any]:
    """The KV-cache table, its figure's checked caption, and exercise 1."""
    shapes = kv_cache.MODEL_SHAPES  # read at every call: a test may replace them
    n = KV_TABLE_SEQ_LEN
    rows = []
    for shape in shapes:
        size = kv_cache_bytes(shape.layers, shape.heads, shape.kv_heads, shape.head_dim, seq_len=n)
        rows.append(ModelRow(shape.name, shape.hypothetical, shape.name.split(",")[0], str(shape.layers), str(shape.heads),
                             str(shape.kv_heads), str(shape.head_dim), shape.kind, format_bytes(size // n), format_bytes(size),
                             model_source_zh(shape.source), shape.source))
    seq_len = KV_FIGURE_SEQ_LEN
    sizes = {shape.name: kv_cache_bytes(shape.layers, shape.heads, shape.kv_heads, shape.head_dim, seq_len=seq_len)
             for shape in shapes}
    first, last = shapes[0], shapes[-1]
    mqa = next(shape for shape in shapes if shape.hypothetical)
    claims.require([shape.name for shape in shapes] == ["Llama-2-7B", "Llama-2-7B, MQA", "Mistral-7B", "Llama-2-70B"],
                   sentence="the figure's alt text names Llama-2-7B, its hypothetical MQA version, Mistral-7B and "
                            "Llama-2-70B, in order")
    claims.require(first.kind == "MHA" and last.kind == "GQA" and last.layers > first.layers and last.heads > first.heads
                   and 4 * last.kv_heads <= last.heads and sizes[last.name] < sizes[first.name]
                   # exact: head counts are integers
                   and mqa.name.startswith(first.name) and sizes[first.name] == first.heads * sizes[mqa.name],
                   sentence="the last model has more layers and heads, but with GQA its KV cache is smaller than the first "
                            "one's, "
                   "and MQA shrinks the first by exactly its number of heads", checked=f"{sizes}")

    llama = next(shape for shape in shapes if shape.name == "Llama-2-70B")
    gqa = kv_cache_bytes(llama.layers, llama.heads, llama.kv_heads, llama.head_dim, seq_len=EXERCISE_SEQ_LEN)
    return {"n": _n(n), "rows": rows, "figure_n": _n(seq_len), "first": first.name, "last": last.name,
            "exercise": {"layers": str(llama.layers), "heads": str(llama.heads), "kv_heads": str(llama.kv_heads),
                         "head_dim": str(llama.head_dim), "n": _n(EXERCISE_SEQ_LEN), "gqa": format_bytes(gqa),
                         "rows": [_exercise_row(llama.layers, llama.heads, kv_heads, llama.head_dim, gqa,
                                                kv_heads == llama.kv_heads)
                                  for kv_heads in (llama.heads, llama.kv_heads, 1)]}}


# Decode: one query against the cache --------------------------------------------------------------


@dataclass(frozen=True)
class DecodeRow:
    """One layout and dtype of the decode part: qkv / PyTorch at each n_k, and the orders they show."""

    shape_q: str
    shape_kv: str
    gqa: bool
    dtype: str
    ratios: list[str]  # at each n_k of the decode part
    # the n_k in order, consecutive ones of the same order together: {"way": slower | level | faster, "n_ks": [...],
    # "ratios": [...]}, never empty; so a sentence gives every ratio where it falls
    runs: list[dict[str, Any]]


_COUNT_WORDS = {"en": ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
                "zh": ("零", "一", "两", "三", "四", "五", "六", "七", "八", "九", "十")}


def count_words(count: int) -> dict[str, str]:
    """A small count as the page's prose writes it, in words up to ten, else in digits; the Chinese with its
    measure word 个 and the spaces a number needs beside Chinese.

    >>> count_words(2), count_words(16)
    ({'en': 'two', 'zh': '两个'}, {'en': '16', 'zh': ' 16 个'})
    """
    if 0 <= count < len(_COUNT_WORDS["en"]):
        return {"en": _COUNT_WORDS["en"][count], "zh": _COUNT_WORDS["zh"][count] + "个"}
    return {"en": _n(count), "zh": f" {_n(count)} 个"}


def _shape(shape: list[int], n_axis: str) -> str:
    """A measured shape as the page writes it in math: the sequence axis named, the head dimension d."""
    return "(" + ", ".join([*(str(size) for size in shape[:-2]), n_axis if shape[-2] > 1 else "1", "d"]) + ")"


def _runs(n_ks: list[int], ratios: list[float]) -> list[dict[str, Any]]:
    """The n_k in order, consecutive ones whose ratios show the same order together, with their ratios.

    >>> [(run["way"], run["n_ks"], run["ratios"]) for run in _runs([1024, 4096, 32768], [1.6, 1.3, 0.5])]
    [('slower', ['1,024', '4,096'], ['1.60', '1.30']), ('faster', ['32,768'], ['0.50'])]
    """
    runs: list[dict[str, Any]] = []
    for n_k, ratio in zip(n_ks, ratios, strict=True):
        way = order(ratio)
        if runs and runs[-1]["way"] == way:  # exact: strings
            runs[-1]["n_ks"].append(_n(n_k))
            runs[-1]["ratios"].append(_times(ratio))
        else:
            runs.append({"way": way, "n_ks": [_n(n_k)], "ratios": [_times(ratio)]})
    return runs


def _threads(part: dict[str, Any]) -> dict[str, Any]:
    """The threads each side ran on at decode, as the decode part records them: qkv's decode path on one, by design."""
    if "torch_threads" not in part or "qkv_decode_threads" not in part:
        raise ValueError("attention_speed: the decode part does not record the threads each side ran on; re-run "
                         "benchmarks/attention_speed.py --decode-only")
    qkv_threads, torch_threads = part["qkv_decode_threads"], part["torch_threads"]
    claims.require(qkv_threads == 1, sentence="qkv's decode path ran on one thread",  # exact: a thread count
                   checked=f"OpenBLAS threads in qkv's decode path: {qkv_threads}")
    return {"torch_threads": count_words(torch_threads), "torch_one_thread": torch_threads == 1}  # exact: a count


def decode_values(speed: dict[str, Any]) -> dict[str, Any]:
    """qkv.attention_output against PyTorch's fused kernel at decode, one query against n_k cached keys: the table,
    the order each layout shows at each n_k, grouped-query decode against MHA on each side, and the threads."""
    part = speed.get("decode")
    if not part or not part["results"]:
        raise ValueError("attention_speed: no decode part in the results; run benchmarks/attention_speed.py")
    n_ks = part["n_ks"]
    ran_on, page_names = part.get("machine", speed["machine"]), speed["machine"]  # --decode-only records a run of its own
    claims.require((ran_on["cpu_model"], ran_on["usable_cpus"]) == (page_names["cpu_model"], page_names["usable_cpus"]),  # exact
                   sentence="the decode rows were measured on the kind of machine the page names",
                   checked=f"{ran_on['cpu_model']}, {ran_on['usable_cpus']} CPUs")
    found = {(row["layout"], row["dtype"], row["n_k"]): row for row in part["results"]}
    keys = list(dict.fromkeys((row["layout"], row["dtype"]) for row in part["results"]))
    cells = [found[(layout, dtype, n_k)] for layout, dtype in keys for n_k in n_ks]
    claims.require(all(cell["torch_sdp_choice"] == 1 for cell in cells),
                   sentence="at decode PyTorch ran its fused flash kernel", checked=f"{[c['torch_sdp_choice'] for c in cells]}")
    claims.require(all(cell["decode_path"] for cell in cells), sentence="qkv took its decode path in every decode row",
                   checked=f"{[c['decode_path'] for c in cells]}")
    rows = []
    for layout, dtype in keys:
        mine = [found[(layout, dtype, n_k)] for n_k in n_ks]
        ratios = [cell["qkv_output_over_torch"] for cell in mine]
        rows.append(DecodeRow(_shape(mine[0]["shape_q"], "n"), _shape(mine[0]["shape_kv"], "n_k"), bool(mine[0]["enable_gqa"]),
                              dtype, [_times(ratio) for ratio in ratios], _runs(n_ks, ratios)))
    mha = [(layout, dtype) for layout, dtype in keys if not found[(layout, dtype, n_ks[0])]["enable_gqa"]]
    gqa = [(layout, dtype) for layout, dtype in keys if found[(layout, dtype, n_ks[0])]["enable_gqa"]]
    claims.require(bool(mha) and bool(gqa) and (mha[0][1], gqa[0][1]) == ("float32", "float32"),  # exact: strings
                   sentence="the decode table has an MHA and a grouped-query layout, both in float32",
                   checked=f"{keys}")
    plain, grouped = mha[0][0], gqa[0][0]
    plain_heads, grouped_heads = (found[(layout, "float32", n_ks[0])]["shape_q"][-3] for layout in (plain, grouped))
    kv_heads = {found[(layout, "float32", n_k)]["shape_kv"][-3] for layout in (plain, grouped) for n_k in n_ks}
    # exact: head counts are integers
    claims.require(len(kv_heads) == 1 and grouped_heads > plain_heads == next(iter(kv_heads)),
                   sentence="grouped-query decode has more query heads than the MHA layout, against the same K/V heads",
                   checked=f"query heads {plain_heads}, {grouped_heads}; K/V heads {kv_heads}")

    def gqa_over_mha(side: str) -> list[float]:  # a side's grouped-query time over its own MHA time at each n_k
        return [found[(grouped, "float32", n_k)][f"{side}_median_s"] / found[(plain, "float32", n_k)][f"{side}_median_s"]
                for n_k in n_ks]

    own, torch_own = gqa_over_mha("qkv_output"), gqa_over_mha("torch")
    # the same K and V, more queries: about as long within ABOUT either way; longer beyond it at some n_k (then reading
    # K and V is not all of qkv's time); else shorter beyond it somewhere, and nowhere longer
    about = claims.decide(all(1 / ABOUT <= ratio <= ABOUT for ratio in own),
                          sentence=f"qkv's grouped-query decode took about as long as its MHA decode (within {ABOUT}× "
                                   "either way) at every n_k")
    longer = claims.decide(any(ratio > ABOUT for ratio in own),
                           sentence=f"qkv's grouped-query decode took more than {ABOUT}× its MHA decode's time at some "
                                    "n_k, so reading K and V is not all of its time")
    return {
        "n_ks": _ns(n_ks), "rows": rows, "repeats": str(part["repeats"]), "d": str(speed["d"]),
        "rows_at_most": _n(blocks.DECODE_ROWS),
        "gqa_heads": str(grouped_heads), "kv_heads": str(plain_heads), "gqa_group": str(grouped_heads // plain_heads),
        "gqa_ratios": [_times(ratio) for ratio in own], "gqa_about_as_long": about, "gqa_longer": longer,
        "torch_gqa_ratios": [_times(ratio) for ratio in torch_own],
        **_threads(part),
    }


@cache
def values(project: Project) -> dict[str, Any]:
    memory, speed = load(project, "attention_memory"), load(project, "attention_speed")
    return {"online": _online(), "memory": memory_values(memory), "time": timing_values(speed),
            "causal": causal_values(speed), "layouts": layout_values(speed), "kv": kv_cache_values(),
            "decode": decode_values(speed), "default_block_size": _n(speed["tiled_default_block_size"])}
