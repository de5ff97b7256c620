"""qkv.complexity: multiplication counts per step, and the article's memory table in binary units."""

from __future__ import annotations

import numpy as np
import pytest

from qkv import self_attention
from qkv.complexity import (
    MemoryRow,
    attention_matrix_bytes,
    attention_matrix_elements,
    crossover_length,
    format_bytes,
    format_count,
    memory_table,
    step_multiplications,
    total_multiplications,
)


def counted_self_attention(x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, w_v: np.ndarray):
    """Self-attention with explicit loops, counting every multiplication and every exp."""
    n, d = x.shape
    counts = dict.fromkeys(("projections", "scores", "scale", "softmax", "weighted_sum"), 0)
    q, k, v = np.zeros((n, d)), np.zeros((n, d)), np.zeros((n, d))
    for out, w in ((q, w_q), (k, w_k), (v, w_v)):
        for i in range(n):
            for j in range(d):
                for m in range(d):
                    out[i, j] += x[i, m] * w[m, j]
                    counts["projections"] += 1
    scores = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            for m in range(d):
                scores[i, j] += q[i, m] * k[j, m]
                counts["scores"] += 1
    inv_sqrt_d = 1 / np.sqrt(d)
    weights = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            scores[i, j] *= inv_sqrt_d
            counts["scale"] += 1
        for j in range(n):
            weights[i, j] = np.exp(scores[i, j] - scores[i].max())
            counts["softmax"] += 1
        weights[i] /= weights[i].sum()  # n divisions per row, not counted (the article counts exps)
    output = np.zeros((n, d))
    for i in range(n):
        for j in range(d):
            for m in range(n):
                output[i, j] += weights[i, m] * v[m, j]
                counts["weighted_sum"] += 1
    return output, counts


@pytest.mark.parametrize(("n", "d"), [(1, 1), (2, 3), (5, 2), (4, 4)])
def test_step_counts_match_an_explicit_loop(n: int, d: int) -> None:
    rng = np.random.default_rng(n * 10 + d)
    x, w_q, w_k, w_v = rng.normal(size=(n, d)), *(rng.normal(size=(d, d)) for _ in range(3))
    output, counts = counted_self_attention(x, w_q, w_k, w_v)
    np.testing.assert_allclose(output, self_attention(x, w_q, w_k, w_v)[0], atol=1e-12)
    assert step_multiplications(n, d) == counts
    assert list(step_multiplications(n, d)) == ["projections", "scores", "scale", "softmax", "weighted_sum"]
    assert total_multiplications(n, d) == sum(counts.values())


def test_formulas() -> None:
    n, d = 4096, 128
    steps = step_multiplications(n, d)
    assert steps["projections"] == 3 * n * d * d
    assert steps["scores"] == steps["weighted_sum"] == n * n * d
    assert steps["scale"] == steps["softmax"] == n * n
    assert total_multiplications(n, d) == 3 * n * d * d + 2 * n * n * d + 2 * n * n


def test_scores_dominate_once_n_exceeds_d() -> None:
    steps = step_multiplications(32768, 128)
    assert steps["scores"] > steps["projections"]


def test_the_articles_memory_table() -> None:
    rows = memory_table()
    assert [row.n for row in rows] == [512, 4096, 32768, 128000]
    assert [row.elements for row in rows] == [262144, 16777216, 1073741824, 16384000000]
    assert [row.bytes for row in rows] == [524288, 33554432, 2147483648, 32768000000]
    assert [row.elements_text for row in rows] == ["262K", "16.8M", "1.07B", "16.4B"]
    assert [row.bytes_text for row in rows] == ["0.5 MiB", "32 MiB", "2 GiB", "30.5 GiB"]
    assert isinstance(rows[0], MemoryRow)


def test_memory_grows_256_fold_from_512_to_8192() -> None:
    assert attention_matrix_bytes(8192) == 256 * attention_matrix_bytes(512)


@pytest.mark.parametrize(("dtype", "itemsize"), [
    ("float16", 2), ("fp16", 2), ("bf16", 2), ("bfloat16", 2), ("float32", 4), ("fp32", 4), (np.float64, 8),
])
def test_dtypes(dtype: object, itemsize: int) -> None:
    assert attention_matrix_bytes(10, dtype) == 100 * itemsize


def test_heads_and_layers_multiply() -> None:
    assert attention_matrix_elements(512, heads=32, layers=4) == 512 * 512 * 128
    assert attention_matrix_bytes(512, "fp32", heads=2, layers=3) == 512 * 512 * 6 * 4
    assert memory_table([512], dtype="fp32")[0].bytes_text == "1 MiB"


@pytest.mark.parametrize(("nbytes", "text"), [
    (0, "0 B"), (100, "100 B"), (511, "511 B"), (512, "0.5 KiB"), (1024, "1 KiB"), (1536, "1.5 KiB"),
    (1000 * 1024, "0.977 MiB"), (2**20, "1 MiB"), (100 * 2**20, "100 MiB"), (2**40 * 3, "3 TiB"),
    (np.int64(2**31), "2 GiB"),
])
def test_format_bytes(nbytes: int, text: str) -> None:
    assert format_bytes(nbytes) == text


@pytest.mark.parametrize(("n", "text"), [
    (0, "0"), (999, "999"), (1000, "1K"), (1234, "1.23K"), (262144, "262K"), (999_999, "1M"),
    (16777216, "16.8M"), (1073741824, "1.07B"), (16384000000, "16.4B"), (2 * 10**12, "2T"),
])
def test_format_count(n: int, text: str) -> None:
    assert format_count(n) == text


@pytest.mark.parametrize("d", [1, 2, 3, 64, 100, 512, 4096])
def test_crossover_length_is_where_steps_2_to_5_overtake_the_projections(d: int) -> None:
    def attention_part(n: int) -> int:
        counts = step_multiplications(n, d)
        return sum(counts.values()) - counts["projections"]

    n = crossover_length(d)
    assert attention_part(n) > step_multiplications(n, d)["projections"]
    if n > 1:
        assert attention_part(n - 1) <= step_multiplications(n - 1, d)["projections"]


def test_crossover_length_rejects_a_bad_width() -> None:
    with pytest.raises(ValueError, match="d"):
        crossover_length(0)
