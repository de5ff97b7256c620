"""The numbers of the page “复杂度与瓶颈 / Complexity and the bottleneck”, from `qkv.complexity`.

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> values(project)["crossover"], values(project)["cost"]["scores"]
('767', '8,589,934,592')
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from qkv.complexity import (
    attention_matrix_bytes,
    crossover_length,
    format_bytes,
    memory_table,
    step_multiplications,
    total_multiplications,
)
from qkv_site.project import Project
from qkv_site.values.claims import Claims

N, D = 4096, 512  # the example of the cost table
LONG_CONTEXT = 32_768  # exercise 1: the context often called 32K
LAYERS = HEADS = 32  # exercise 1: the model that keeps every attention matrix


@dataclass(frozen=True)
class ShareRow:
    """One row of the note's table: at sequence length ``n``, who does more multiplications."""

    n: str
    projections: str  # share of step 1 (the projections)
    quadratic: str  # share of steps 2-5
    projections_lead: bool


def _shares(d: int, crossover: int) -> list[ShareRow]:
    rows = []
    for n in sorted({128, d, crossover, N, 32_768}):
        counts = step_multiplications(n, d)
        share = counts["projections"] / sum(counts.values())
        rows.append(ShareRow(f"{n:,}", f"{share:.1%}", f"{1 - share:.1%}", share > 0.5))
    return rows


@dataclass(frozen=True)
class MemoryLine:
    """One row of the article's memory table, as the page prints it."""

    n: str  # 4,096
    n_plain: str  # 4096, for a formula
    elements: str  # 16.8M
    exact: str  # 16,777,216
    bytes: str  # 32 MiB
    exact_bytes: str  # 33,554,432


def _memory_lines() -> list[MemoryLine]:
    return [MemoryLine(f"{row.n:,}", str(row.n), row.elements_text, f"{row.elements:,}", row.bytes_text, f"{row.bytes:,}")
            for row in memory_table(dtype="float16")]


# Every number of this page is a count of integers (multiplications, bytes): exact on every machine, and a
# quotient of two of them is a correctly rounded float division, the same everywhere.
claims = Claims("complexity.md")


@cache
def values(project: Project) -> dict[str, Any]:
    counts = step_multiplications(N, D)
    crossover = crossover_length(D)
    table = memory_table(dtype="float16")
    lines = _memory_lines()
    last = table[-1]
    doubled = total_multiplications(2 * N, D) / total_multiplications(N, D)
    bound = 3 * D * D / (2 * D + 2)
    claims.require(len(lines) == 4, sentence="the four rows of the memory table; the figure marks four points, the four "
                                             "rows of the table")
    claims.require(LONG_CONTEXT == 32 * 1024, sentence="exercise 1: n = 32,768, the context often called 32K")
    claims.require(3 < doubled < 4, sentence="exercise 3: the total grows a little less than fourfold (the projections only "
                                             "double)")
    return {
        "n": f"{N:,}",
        "n_plain": str(N),  # 4096, for a formula
        "n_tex": f"{N:,}".replace(",", "{,}"),  # 4{,}096
        "d": str(D),
        "cost": {step: f"{count:,}" for step, count in counts.items()},
        "cost_total": f"{total_multiplications(N, D):,}",
        "crossover": f"{crossover:,}",
        "shares": _shares(D, crossover),
        "memory": lines,
        "memory_first": lines[0],
        "memory_last": lines[-1],
        "memory_last_decimal_gb": f"{last.bytes / 1e9:.1f}",
        "memory_last_short": f"{last.n // 1000}K" if last.n % 1000 == 0 else f"{last.n:,}",  # 128,000 as the article writes it
        "memory_rounded": next(line for line in lines if line.n_plain == "4096"),  # the article writes its count as 16.7M
        "all_memory_sizes": [line.bytes for line in lines],
        "memory_points": [line.n_plain for line in lines],  # the figure's marked points, as its alt text names them
        "memory_last_tex": lines[-1].n.replace(",", "{,}"),  # 128{,}000
        # exercise 1
        "long_n": f"{LONG_CONTEXT:,}",
        "long_tex": f"{LONG_CONTEXT:,}".replace(",", "{,}"),  # 32{,}768
        "long_fp16": format_bytes(attention_matrix_bytes(LONG_CONTEXT, "float16")),
        "long_fp32": format_bytes(attention_matrix_bytes(LONG_CONTEXT, "float32")),
        "long_layer": format_bytes(attention_matrix_bytes(LONG_CONTEXT, "float16", heads=HEADS)),  # one layer's, at once
        "long_model": format_bytes(attention_matrix_bytes(LONG_CONTEXT, "float16", heads=HEADS, layers=LAYERS)),
        "layers": str(LAYERS),
        "heads": str(HEADS),
        # exercise 2
        "bound_numerator": f"{3 * D * D:,}",
        "bound_denominator": f"{2 * D + 2:,}",
        "bound": f"{bound:.1f}",
        # exercise 3
        "doubled_n": f"{2 * N:,}",
        "doubled_total": f"{total_multiplications(2 * N, D):,}",
        "doubled_ratio": f"{doubled:.2f}",
    }
