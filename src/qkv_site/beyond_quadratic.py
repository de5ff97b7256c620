"""The sentences of the page “延伸：O(n²) 瓶颈实测 / the O(n²) bottleneck, measured” that describe the benchmark results.

Each function takes the committed results (`qkv_site.figures.results.load`) and a language and
returns Markdown for the page; every comparison in it is a `qkv_site.claims.claim` on those
results, so re-measured results either keep each sentence true or stop the build naming it.
"""

from __future__ import annotations

import math
import re
from itertools import pairwise
from statistics import median
from typing import Any

import numpy as np

from qkv.complexity import format_bytes
from qkv_site.claims import ClaimError, Sentence, choose, claim, listing
from qkv_site.figure_markup import figure
from qkv_site.figures.labels import text
from qkv_site.figures.results import repeats, series

PAGE = "beyond-quadratic.md"
KV_FIGURE_SEQ_LEN = 4096  # the KV-cache figure's one length for every model (figures/kv_cache_sizes.py)
SIGNIFICANCE = 0.05  # a two-sided sign test over the interleaved rounds below this: a clear difference


def _n(n: int) -> str:
    return f"{n:,}"


def _ns(ns: list[int], lang: str) -> str:
    return listing([_n(n) for n in ns], lang)


def _times(ratio: float) -> str:
    return f"{ratio:.2f}"


def _percent(fraction: float) -> str:
    return f"{fraction:.0%}"


def _range(values: list[float], write) -> str:
    low, high = write(min(values)), write(max(values))
    return low if low == high else f"{low}–{high}"


# Memory ----------------------------------------------------------------------------------------


def _memory_rows(memory: dict[str, Any]) -> list[dict[str, Any]]:
    rows = sorted(memory["results"], key=lambda row: row["n"])
    if len(rows) < 3:
        raise ValueError(f"attention_memory: {len(rows)} sequence lengths; the page compares at least 3")
    return rows


def memory_paragraph(memory: dict[str, Any], lang: str) -> str:
    """What the memory table shows: ordinary attention against one n×n matrix, tiled attention against n."""
    rows = _memory_rows(memory)
    ns = [row["n"] for row in rows]
    per_matrix = [row["naive_peak_bytes"] / row["n_by_n_float32_bytes"] for row in rows]
    itemsize = np.dtype(memory["dtype"]).itemsize
    n_by_d = [n * memory["d"] * itemsize for n in ns]
    rest = [(row["naive_peak_bytes"] - row["n_by_n_float32_bytes"]) / size for row, size in zip(rows, n_by_d, strict=True)]
    shrinking = all(b <= a for a, b in pairwise(per_matrix))
    spread = _range(per_matrix, _times)

    one_matrix = max(per_matrix) < 2 and min(per_matrix) >= 1 and shrinking
    ordinary = choose(
        PAGE,
        (one_matrix,
         f"普通注意力的峰值不到两个 $n \\times n$ 矩阵：表里是一个矩阵的 {spread} 倍，$n$ 越大越接近 1 倍。"
         "qkv 把分数直接写进要返回的权重矩阵，再在原地把它们变成权重（Softmax 按能放进缓存的几行一块地算），"
         "所以整个计算只有这一个 $n \\times n$ 数组；",
         f"Ordinary attention's peak is less than two $n \\times n$ matrices: {spread} times one in the table, "
         "closer to 1 the larger $n$ is. qkv writes the scores straight into the weight matrix it returns and turns "
         "them into weights in place (the softmax runs a few cache-sized rows at a time), so this is the only "
         "$n \\times n$ array of the whole computation;"),
        (max(per_matrix) >= 2,
         f"普通注意力的峰值是 {spread} 个 $n \\times n$ 矩阵：计算中同时存在不止一个 $n \\times n$ 数组。",
         f"Ordinary attention's peak is {spread} $n \\times n$ matrices: more than one $n \\times n$ array exists at once."),
        why=f"peak / one n×n matrix = {[round(x, 3) for x in per_matrix]}",
    )
    sentences = [ordinary]
    if one_matrix:  # what the one matrix leaves over
        sentences.append(claim(
            max(rest) / min(rest) < 1.5,
            page=PAGE,
            zh=f"多出来的部分随 $n$ 线性增长，每个 $n$ 上约是 {_range(rest, lambda x: f'{x:.1f}')} 个 $n \\times d$ 数组的大小"
            "（输出、缩放后的 Query 和几个小的临时数组），所以 $n$ 越小，它占的比例越大。",
            en=f"the rest grows linearly with $n$, about {_range(rest, lambda x: f'{x:.1f}')} arrays of $n \\times d$ at every $n$ "
            "(the output, the scaled queries and a few small temporaries), which is why it weighs more the smaller $n$ is.",
            why=f"(peak - n×n) / (n×d) = {[round(x, 2) for x in rest]} within a factor 1.5",
        ))

    tiled = [row["tiled_peak_bytes"] for row in rows]
    last, before = rows[-1], rows[-2]
    doubling = last["tiled_peak_bytes"] / before["tiled_peak_bytes"]
    output_share = n_by_d[-1] / last["tiled_peak_bytes"]
    grows = claim(
        last["n"] == 2 * before["n"] and 1.5 <= doubling <= 2.5 and output_share > 0.5 and tiled == sorted(tiled),
        page=PAGE,
        zh=f"分块注意力（块大小 {memory['block_size']}）的峰值只随 $n$ 线性增长：$n$ 从 {_n(before['n'])} 翻倍到 "
        f"{_n(last['n'])}，它变为 {doubling:.2f} 倍；增长的主要是 $n \\times d$ 的输出，在 $n$ = {_n(last['n'])} 时占了峰值的 "
        f"{_percent(output_share)}。",
        en=f"Tiled attention (blocks of {memory['block_size']}) grows only linearly with $n$: from $n$ = {_n(before['n'])} to "
        f"{_n(last['n'])} its peak grows {doubling:.2f} times, and what grows is mostly the $n \\times d$ output, "
        f"{_percent(output_share)} of the peak at $n$ = {_n(last['n'])}.",
        why=f"last doubling of the tiled peak {doubling:.3f} in [1.5, 2.5], output share {output_share:.3f} > 0.5, peaks increasing",
    )
    sentences.append(grows)
    return ("" if lang == "zh" else " ").join(sentence[lang] for sentence in sentences)


def memory_figure(memory: dict[str, Any], lang: str) -> str:
    """The measured-memory figure with an alt text and caption that say what its lines do."""
    rows = _memory_rows(memory)
    ns = np.array([row["n"] for row in rows], dtype=float)
    naive = np.array([row["naive_peak_bytes"] for row in rows], dtype=float)
    tiled = np.array([row["tiled_peak_bytes"] for row in rows], dtype=float)
    half = len(rows) // 2  # the slopes of the larger half of the n: where each line has its final slope
    naive_slope = float(np.polyfit(np.log2(ns[half:]), np.log2(naive[half:]), 1)[0])
    tiled_slope = float(np.polyfit(np.log2(ns[half:]), np.log2(tiled[half:]), 1)[0])
    gap = naive / tiled
    alt = claim(
        1.8 <= naive_slope <= 2.2 and 0.8 <= tiled_slope <= 1.2 and bool(np.all(np.diff(gap) > 0)),
        page=PAGE,
        zh="对数坐标图：普通注意力的峰值内存随 n 平方增长，分块注意力只线性增长，n 越大相差越多",
        en="Log-scale plot: the peak memory of ordinary attention grows with the square of n, that of tiled attention "
        "only linearly, and the gap widens with n",
        why=f"log-log slopes over n ≥ {int(ns[half])}: ordinary {naive_slope:.2f} in [1.8, 2.2], tiled {tiled_slope:.2f} "
        f"in [0.8, 1.2]; ordinary / tiled increasing: {[round(x, 1) for x in gap]}",
    )
    from_n = _n(int(ns[half]))
    caption = claim(
        True,  # the same slopes as the alt text, checked there
        page=PAGE,
        zh=f"一次注意力计算的峰值内存（float32，$d = {memory['d']}$，对数坐标）。看两条线的斜率：普通注意力和虚线"
        f"（一个 $n \\times n$ 矩阵）平行，$n$ 翻倍，内存变为约 4 倍；分块注意力的斜率只有一半，$n$ 翻倍，内存也只大约翻倍"
        f"（$n \\ge$ {from_n} 时两条线的斜率是 {naive_slope:.2f} 和 {tiled_slope:.2f}，$n^2$ 是 2，$n$ 是 1）。"
        "箭头标出的就是上表最后一行。",
        en=f"Peak memory of one attention call (float32, $d = {memory['d']}$, log scale). Compare the slopes: ordinary "
        "attention runs parallel to the dotted line (one $n \\times n$ matrix), so doubling $n$ about quadruples the memory; "
        "tiled attention has half that slope, so doubling $n$ only about doubles it (for $n \\ge$ "
        f"{from_n} the slopes are {naive_slope:.2f} and {tiled_slope:.2f}, where $n^2$ is 2 and $n$ is 1). The arrow marks "
        "the last row of the table above.",
    )
    return figure("tiled_memory", lang, alt=alt[lang], caption=caption[lang])


# Time ------------------------------------------------------------------------------------------


def _speed_rows(speed: dict[str, Any]) -> dict[tuple[int, str], dict[str, Any]]:
    return {(row["n"], row["implementation"]): row for row in speed["results"]}


def repeats_sentence(speed: dict[str, Any], lang: str) -> str:
    """What each number of the timing table is the median of (the pure-Python loop may have fewer repeats)."""
    counts = repeats(speed)
    shown = {name: counts[name] for name in ("qkv", "tiled", "torch", "python")}
    most = max(shown.values())
    fewer = {name: count for name, count in shown.items() if count < most}
    names = {"zh": {"qkv": "qkv", "tiled": "分块注意力", "torch": "PyTorch", "python": "纯 Python 循环"},
             "en": {"qkv": "qkv", "tiled": "tiled attention", "torch": "PyTorch", "python": "the pure-Python loop"}}
    zh_fewer = "，".join(f"{names['zh'][name]}只重复了 {count} 次" for name, count in fewer.items())
    en_fewer = "; ".join(f"{names['en'][name]} had only {count}" for name, count in fewer.items())
    sentence = choose(
        PAGE,
        (not fewer, f"每个数字是 {most} 次交替重复的中位数：", f"Each number is the median of {most} interleaved repeats:"),
        (bool(fewer), f"每个数字是 {most} 次交替重复的中位数（{zh_fewer}）：",
         f"Each number is the median of {most} interleaved repeats ({en_fewer}):"),
    )
    return sentence[lang]


def _sign_test(slower: int, faster: int) -> float:
    """Two-sided sign test: how likely a split at least this uneven is if neither is faster."""
    rounds = slower + faster
    if rounds == 0:
        return 1.0
    tail = sum(math.comb(rounds, i) for i in range(min(slower, faster) + 1)) / 2**rounds
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
        verdict = "unclear" if p >= SIGNIFICANCE else "slower" if slower > faster else "faster"
        compared.append({"n": n, "ratio": ratio, "slower": slower, "faster": faster, "rounds": len(tiled), "verdict": verdict})
    return compared


def tiled_block_size(speed: dict[str, Any]) -> int:
    """The block size the timing run gave `tiled_attention`, as its results record it."""
    match = re.search(r"block_size=(\d+)", speed["implementations"]["tiled"])
    if not match:
        raise ValueError(f"attention_speed: no block_size in the tiled implementation {speed['implementations']['tiled']!r}")
    return int(match.group(1))


def timing_paragraph(speed: dict[str, Any], lang: str) -> str:
    """Tiled attention against qkv at every n, what the block size means for it, and (if so) why it wins."""
    block = tiled_block_size(speed)
    itemsize = np.dtype(speed["dtype"]).itemsize
    compared = tiled_comparison(speed)
    ns = [row["n"] for row in compared]
    one_tile = [n for n in ns if n <= block]
    many = [n for n in ns if n > block]
    sentences: list[Sentence] = [claim(
        True,
        page=PAGE,
        zh=f"分块注意力的矩阵乘法和 qkv 一样多，另外还要做在线 Softmax 的记账（每一块更新最大值、修正因子，换算累加器）。"
        f"计时用的是 `tiled_attention` 默认的块大小 {_n(block)}。",
        en=f"Tiled attention does the same matrix products as qkv, plus the online softmax's bookkeeping (for every tile "
        f"the new maxima, the correction factors, the rescaled accumulator). The timing uses `tiled_attention`'s default "
        f"block size, {_n(block)}.",
    )]
    if one_tile:
        sentences.append(claim(
            True,  # from the block size and the measured n
            page=PAGE,
            zh=f"$n$ = {_ns(one_tile, 'zh')} 时整个计算只有一块：没有 Python 循环，$n \\times n$ 的分数也整块存在，"
            "分块注意力做的就是普通注意力的几步，再加上这些记账。",
            en=f"At $n$ = {_ns(one_tile, 'en')} the whole computation is a single tile: no Python loop, the whole "
            "$n \\times n$ score matrix exists at once, and tiled attention does the steps of ordinary attention plus "
            "that bookkeeping.",
        ))
    if many:
        tiles = listing([_n(math.ceil(n / block) ** 2) for n in many], "zh")
        tiles_en = listing([_n(math.ceil(n / block) ** 2) for n in many], "en")
        sentences.append(claim(
            True,
            page=PAGE,
            zh=f"$n$ = {_ns(many, 'zh')} 时，它{'分别' if len(many) > 1 else ''}要在循环里依次处理 {tiles} 块。",
            en=f"At $n$ = {_ns(many, 'en')} its loop goes through {tiles_en} tiles{' respectively' if len(many) > 1 else ''}.",
        ))

    rounds = compared[0]["rounds"]
    for verdict in ("slower", "faster"):
        group = [row for row in compared if row["verdict"] == verdict]
        if not group:
            continue
        margin = [abs(row["ratio"] - 1) for row in group]
        wins = min(row[verdict] for row in group)
        group_ns = [row["n"] for row in group]
        zh_word, en_word = ("慢", "slower") if verdict == "slower" else ("快", "faster")
        sentences.append(claim(
            all((row["ratio"] > 1) == (verdict == "slower") for row in group),
            page=PAGE,
            zh=f"$n$ = {_ns(group_ns, 'zh')} 时，分块注意力明显比 qkv {zh_word}（中位数{zh_word} {_range(margin, _percent)}），"
            f"{rounds} 轮交替测量里至少有 {wins} 轮更{zh_word}。",
            en=f"At $n$ = {_ns(group_ns, 'en')} tiled attention was clearly {en_word} than qkv ({_range(margin, _percent)} by "
            f"the medians), {en_word} in at least {wins} of the {rounds} interleaved rounds.",
            why=f"medians on the side the rounds say: {[(row['n'], round(row['ratio'], 3)) for row in group]}",
        ))
    unclear = [row for row in compared if row["verdict"] == "unclear"]
    if unclear:
        counts_zh = listing([f"{row['slower']}" for row in unclear], "zh")
        counts_en = listing([f"{row['slower']}" for row in unclear], "en")
        margin = [abs(row["ratio"] - 1) for row in unclear]
        sentences.append(claim(
            all(_sign_test(row["slower"], row["faster"]) >= SIGNIFICANCE for row in unclear),
            page=PAGE,
            zh=f"$n$ = {_ns([row['n'] for row in unclear], 'zh')} 时，两者中位数相差 {_range(margin, _percent)}，"
            f"但在 {rounds} 轮交替测量里，分块更慢的轮数{'分别' if len(unclear) > 1 else ''}只有 {counts_zh} 轮："
            "这个差别没有超出计时的波动。",
            en=f"At $n$ = {_ns([row['n'] for row in unclear], 'en')} their medians differ by {_range(margin, _percent)}, but "
            f"tiled attention was slower in only {counts_en} of the {rounds} interleaved rounds"
            f"{' respectively' if len(unclear) > 1 else ''}: a difference within the timing noise.",
        ))

    largest = compared[-1]
    if largest["verdict"] == "faster" and largest["n"] > block:
        n = largest["n"]
        sentences.append(claim(
            True,  # the verdict above; the explanation is offered as the likeliest one
            page=PAGE,
            zh=f"最可能的解释是内存读写：普通注意力要把一个 $n \\times n$ 的分数矩阵写进内存，再一遍遍地读写它（求每行最大值、取指数、"
            f"按行求和、相除、乘以 $V$），$n$ = {_n(n)} 时这个矩阵就有 {format_bytes(n**2 * itemsize)}，远远装不进 CPU 的缓存；"
            f"分块注意力每次只处理一块 {block}×{block} 的分数（{format_bytes(block**2 * itemsize)}）。",
            en=f"The likeliest explanation is memory traffic: ordinary attention writes an $n \\times n$ matrix of scores to "
            "memory and passes over it again and again (the row maxima, the exponentials, the row sums, the division, the "
            f"product with $V$), and at $n$ = {_n(n)} that matrix is {format_bytes(n**2 * itemsize)}, far more than the "
            f"CPU's caches hold; tiled attention handles one {block}×{block} tile of scores at a time "
            f"({format_bytes(block**2 * itemsize)}).",
        ))
    return ("" if lang == "zh" else " ").join(sentence[lang] for sentence in sentences)


def _slope(ns: list[int], seconds: list[float]) -> float:
    return float(np.polyfit(np.log2(ns), np.log2(seconds), 1)[0])


def time_figure(speed: dict[str, Any], lang: str) -> str:
    """The measured-time figure with an alt text and caption that say what its lines do."""
    t = text("attention_time", lang)
    lines = {name: series(speed, name) for name in ("qkv", "tiled", "torch", "python")}
    lines = {name: line for name, line in lines.items() if line[0]}
    rising = all(all(b > a for a, b in pairwise(seconds)) for _, seconds in lines.values())
    count = {"zh": "二三四五六"[len(lines) - 2] if 2 <= len(lines) <= 6 else str(len(lines)),
             "en": ["two", "three", "four", "five", "six"][len(lines) - 2] if 2 <= len(lines) <= 6 else str(len(lines))}
    alt = claim(
        rising,
        page=PAGE,
        zh=f"双对数坐标图：{count['zh']}种实现的时间随 n 增长，并画出斜率为 n² 的参考虚线",
        en=f"Log-log plot: the time of {count['en']} implementations against n, each rising with n, with a dotted reference "
        "line of slope n²",
        why="every implementation's median time increases with n",
    )

    # The slope of qkv, tiled and PyTorch over the larger n (where the n² work dominates the fixed costs).
    fast = [name for name in ("qkv", "tiled", "torch") if name in lines]
    ns = lines["qkv"][0]
    start = next((i for i in range(len(ns) - 2)
                  if all(1.7 <= _slope(lines[name][0][i:], lines[name][1][i:]) <= 2.3 for name in fast)), None)
    if start is None:
        raise ClaimError(f"{PAGE}: qkv, tiled and PyTorch never run parallel to n² over three or more of the measured n; "
                             "the time figure's caption has no true sentence about their slopes")
    slopes = [_slope(lines[name][0][start:], lines[name][1][start:]) for name in fast]
    names = {"zh": listing([t[name] for name in fast], "zh"), "en": listing([t[name] for name in fast], "en")}
    parallel = claim(
        True,  # start was chosen so that every slope is within [1.7, 2.3]
        page=PAGE,
        zh=f"把每条线和虚线（斜率对应 $n^2$）比较：$n \\ge$ {_n(ns[start])} 时，{names['zh']}都大致沿着这个斜率上升"
        f"（斜率 {_range(slopes, lambda x: f'{x:.1f}')}，$n^2$ 是 2），$O(n^2 \\cdot d)$ 的计算量躲不掉；",
        en=f"Compare each line with the dotted one (the slope of $n^2$): from $n$ = {_n(ns[start])} on, {names['en']} all "
        f"rise at about that slope ({_range(slopes, lambda x: f'{x:.1f}')}, where $n^2$ is 2): the $O(n^2 \\cdot d)$ work "
        "cannot be avoided;",
    )
    compared = tiled_comparison(speed)
    tiled_side = choose(
        PAGE,
        (all(row["ratio"] > 1 for row in compared),
         "分块注意力的线在每个 $n$ 上都在 qkv 的上方：分块省的是内存，不是时间（逐个比较见上文）。",
         "the tiled line lies above qkv's at every $n$: tiling saves memory, not time (the comparison n by n is above)."),
        (all(row["ratio"] < 1 for row in compared),
         "分块注意力的线在每个 $n$ 上都在 qkv 的下方（逐个比较见上文）。",
         "the tiled line lies below qkv's at every $n$ (the comparison n by n is above)."),
        (True,
         "分块注意力的线和 qkv 的线交叉：哪一个更快随 $n$ 而变（逐个比较见上文）。",
         "the tiled line crosses qkv's: which is faster depends on $n$ (the comparison n by n is above)."),
    )
    sentences = [f"一次注意力计算的时间（float32，$d = {speed['d']}$，双对数坐标）。" if lang == "zh"
                 else f"Time of one attention call (float32, $d = {speed['d']}$, log-log).", parallel[lang], tiled_side[lang]]
    if "python" in lines:
        rows = _speed_rows(speed)
        slower = [rows[(n, "python")]["median_s"] / rows[(n, "qkv")]["median_s"] for n in lines["python"][0]]
        python = claim(
            min(slower) > 10,
            page=PAGE,
            zh=f"纯 Python 循环比 qkv 慢 {_range(slower, lambda x: f'{x:,.0f}')} 倍。",
            en=f"The pure-Python loop is {_range(slower, lambda x: f'{x:,.0f}')} times slower than qkv.",
            why=f"pure Python / qkv = {slower}",
        )
        sentences.append(python[lang])
    return figure("attention_time", lang, alt=alt[lang], caption=("" if lang == "zh" else " ").join(sentences))


# KV cache --------------------------------------------------------------------------------------


def kv_cache_figure(lang: str) -> str:
    """The KV-cache figure; its caption compares the first and the last model, checked on their shapes."""
    from qkv import kv_cache_bytes
    from qkv.kv_cache import MODEL_SHAPES

    seq_len = KV_FIGURE_SEQ_LEN
    size = {shape.name: kv_cache_bytes(shape.layers, shape.heads, shape.kv_heads, shape.head_dim, seq_len=seq_len)
            for shape in MODEL_SHAPES}
    first, last = MODEL_SHAPES[0], MODEL_SHAPES[-1]
    mqa = next(shape for shape in MODEL_SHAPES if shape.hypothetical)
    names = "、".join(shape.name.split(",")[0] for shape in MODEL_SHAPES)
    alt = claim(
        [shape.name for shape in MODEL_SHAPES] == ["Llama-2-7B", "Llama-2-7B, MQA", "Mistral-7B", "Llama-2-70B"],
        page=PAGE,
        zh="横向条形图：Llama-2-7B、它的假想 MQA 版本、Mistral-7B 和 Llama-2-70B 的 KV Cache 大小，每根条一半是 K、一半是 V",
        en="Horizontal bar chart: the KV-cache size of Llama-2-7B, a hypothetical MQA version of it, Mistral-7B and "
        "Llama-2-70B, each bar half K and half V",
        why=f"the models drawn, in order: {names}",
    )
    caption = claim(
        first.kind == "MHA" and last.kind == "GQA" and last.layers > first.layers and last.heads > first.heads
        and 4 * last.kv_heads <= last.heads and size[last.name] < size[first.name]
        and mqa.name.startswith(first.name) and size[first.name] == first.heads * size[mqa.name],
        page=PAGE,
        zh=f"{seq_len:,} 个 Token 的 KV Cache（FP16，批大小 1）。比较第一根和最后一根条：{last.name} 的层数和头数都更多，"
        f"但它用 GQA，K/V 头比 Query 头少得多（个数见上表），KV Cache 反而比用 MHA 的 {first.name} 小；同一个 {first.name} "
        "改成 MQA（带斜线的假想版本），KV Cache 缩小的倍数正好是它的头数。每根条的橙色一半是 K，绿色一半是 V。",
        en=f"KV cache for {seq_len:,} tokens (FP16, batch of 1). Compare the first bar with the last: {last.name} has more "
        "layers and more heads, but it uses GQA, with far fewer K/V heads than query heads (the table above has the "
        f"numbers), and its KV cache is smaller than that of {first.name}, which uses MHA; the same {first.name} with MQA "
        "(the hatched, hypothetical bar) shrinks by exactly its number of heads. The orange half of each bar is K, the "
        "green half V.",
        why=f"{first.name} {first.kind}, {last.name} {last.kind}: layers, heads, K/V heads and cache sizes {size}",
    )
    return figure("kv_cache_sizes", lang, alt=alt[lang], caption=caption[lang])


# Online softmax --------------------------------------------------------------------------------


def same_result_sentence(weights_gap: float, output_gap: float, lang: str) -> str:
    """The online softmax's weights and output against the step-by-step example's: identical, or off by rounding only."""
    sentence = choose(
        PAGE,
        (weights_gap == output_gap == 0,
         "和逐步计算里直接算出的权重和输出逐项比较，每一个数都完全相同，连最后一位都一样：同一个结果，只是换了计算顺序。",
         "Compared entry by entry with the weights and the output the step-by-step example computes directly, every "
         "number is identical, down to the last bit: the same result, computed in a different order."),
        (max(weights_gap, output_gap) < 1e-12,  # float64 rounding of a handful of operations on numbers near 1
         f"和逐步计算里直接算出的结果逐项比较，权重最多差 {weights_gap:.1e}，输出最多差 {output_gap:.1e}，只是浮点舍入的差别："
         "同一个结果，只是换了计算顺序。",
         f"Compared entry by entry with the step-by-step example, which computes them directly, the weights differ by at "
         f"most {weights_gap:.1e} and the output by at most {output_gap:.1e}, nothing but floating-point rounding: the "
         "same result, computed in a different order."),
        why=f"largest differences: weights {weights_gap:.3g}, output {output_gap:.3g}",
    )
    return sentence[lang]


# Where the model shapes come from ---------------------------------------------------------------

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


def model_source(source: str, lang: str) -> str:
    """Where a model shape's numbers come from (`ModelShape.source`), in the page's language.

    >>> model_source("hypothetical: Llama-2-7B with a single K/V head", "zh")
    '假想：Llama-2-7B 只留一个 K/V 头'
    """
    if lang == "en":
        return source
    text = source
    for pattern, replacement in _SOURCE_ZH:
        text = re.sub(pattern, replacement, text)
    left = [word for word in re.findall(r"(?<!\w)[A-Za-z][A-Za-z_]*", text)
            if (word.islower() and "_" not in word and word not in _NAMES_IN_SOURCES) or word == "Table"]
    if left:
        raise ValueError(f"{PAGE}: the model source {source!r} has English words left in Chinese: {left}; "
                         "add the phrase to _SOURCE_ZH in qkv_site/beyond_quadratic.py")
    return text
