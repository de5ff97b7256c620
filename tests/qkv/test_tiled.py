"""qkv.tiled: tiled attention equals the ordinary one for every block size, without its n×n memory."""

from __future__ import annotations

import re
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qkv import attention_output, causal_mask, online_softmax_steps, scaled_dot_product_attention, softmax, tiled_attention
from qkv.examples import worked_example

# (batch shape, n_q, n_k, d_k, d_v): square and not, tiny and a few hundred, with and without batch dims.
SHAPES = [
    ((), 1, 1, 1, 1),
    ((), 2, 2, 3, 3),
    ((), 7, 7, 5, 3),
    ((), 33, 33, 8, 8),
    ((), 100, 100, 16, 4),
    ((), 257, 257, 32, 32),
    ((), 5, 19, 4, 6),
    ((), 64, 13, 8, 8),
    ((3,), 31, 31, 8, 5),
    ((2, 4), 17, 17, 4, 4),
]
# Dividing and not dividing n, 1 (one key at a time), and larger than n.
BLOCK_SIZES = [1, 2, 3, 7, 16, 32, 64, 100, 128, 1000]


def inputs(batch: tuple[int, ...], n_q: int, n_k: int, d_k: int, d_v: int, seed: int = 0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(*batch, n_q, d_k)).astype(dtype)
    k = rng.normal(size=(*batch, n_k, d_k)).astype(dtype)
    v = rng.normal(size=(*batch, n_k, d_v)).astype(dtype)
    return q, k, v


@pytest.mark.parametrize("block_size", BLOCK_SIZES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_equals_scaled_dot_product_attention_in_float64(shape, block_size: int) -> None:
    q, k, v = inputs(*shape, seed=block_size)
    expected, _ = scaled_dot_product_attention(q, k, v)
    output = tiled_attention(q, k, v, block_size=block_size)
    assert output.shape == expected.shape and output.dtype == np.float64
    np.testing.assert_allclose(output, expected, rtol=0, atol=1e-10)


@pytest.mark.parametrize("block_size", BLOCK_SIZES)
@pytest.mark.parametrize("shape", [s for s in SHAPES if s[1] == s[2]], ids=str)
def test_causal_equals_the_masked_attention_in_float64(shape, block_size: int) -> None:
    q, k, v = inputs(*shape, seed=block_size + 1)
    expected, _ = scaled_dot_product_attention(q, k, v, mask=causal_mask(shape[1]))
    np.testing.assert_allclose(tiled_attention(q, k, v, block_size=block_size, is_causal=True), expected, rtol=0, atol=1e-10)


@pytest.mark.parametrize("seed", range(20))
def test_random_shapes_and_block_sizes(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, d_k, d_v = (int(x) for x in rng.integers(1, 90, size=3))
    batch = tuple(int(x) for x in rng.integers(1, 4, size=int(rng.integers(0, 3))))
    block_size = int(rng.integers(1, n + 10))
    q, k, v = inputs(batch, n, n, d_k, d_v, seed=seed)
    for causal in (False, True):
        mask = causal_mask(n) if causal else None
        expected, _ = scaled_dot_product_attention(q, k, v, mask=mask)
        np.testing.assert_allclose(tiled_attention(q, k, v, block_size=block_size, is_causal=causal), expected, rtol=0, atol=1e-10)


@pytest.mark.parametrize("causal", [False, True])
def test_float32_stays_float32_and_is_close(causal: bool) -> None:
    q, k, v = inputs((2,), 300, 300, 64, 64, dtype=np.float32)
    expected, _ = scaled_dot_product_attention(q, k, v, mask=causal_mask(300) if causal else None)
    output = tiled_attention(q, k, v, block_size=48, is_causal=causal)
    assert output.dtype == np.float32
    np.testing.assert_allclose(output, expected, rtol=1e-5, atol=1e-5)


def test_float16_is_accumulated_in_float32_and_returned_in_float16() -> None:
    q, k, v = inputs((), 50, 50, 16, 8, dtype=np.float16)
    output = tiled_attention(q, k, v, block_size=8)
    assert output.dtype == np.float16
    expected, _ = scaled_dot_product_attention(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64))
    np.testing.assert_allclose(output, expected, rtol=0, atol=2e-3)


def test_batch_dims_broadcast_like_the_rest_of_qkv() -> None:
    rng = np.random.default_rng(3)
    q = rng.normal(size=(2, 1, 9, 4))  # heads broadcast against keys of shape (1, 3, …)
    k = rng.normal(size=(1, 3, 11, 4))
    v = rng.normal(size=(11, 5))
    expected, _ = scaled_dot_product_attention(q, k, v)
    output = tiled_attention(q, k, v, block_size=4)
    assert output.shape == (2, 3, 9, 5)
    np.testing.assert_allclose(output, expected, rtol=0, atol=1e-10)


def test_custom_scale_and_lists() -> None:
    example = worked_example()
    expected, _ = scaled_dot_product_attention(example.q, example.k, example.v, scale=0.25)
    output = tiled_attention(example.q.tolist(), example.k.tolist(), example.v.tolist(), block_size=1, scale=0.25)
    np.testing.assert_allclose(output, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tiled_attention(example.q, example.k, example.v, block_size=1), example.output, atol=1e-12)


def test_large_scores_do_not_overflow() -> None:
    # exp(±1e3) would overflow; the running max keeps every exponent <= 0.
    q = np.array([[30.0, 0.0], [0.0, -30.0]])
    k = np.array([[40.0, 0.0], [-40.0, 10.0], [0.0, 40.0]])
    v = np.eye(3)
    expected, _ = scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(tiled_attention(q, k, v, block_size=1), expected, rtol=0, atol=1e-12)


# ---- errors: the same words as the rest of qkv ----------------------------------------------------


@pytest.mark.parametrize("block_size", [0, -3])
def test_block_size_must_be_positive(block_size: int) -> None:
    with pytest.raises(ValueError, match=re.escape(f"block_size must be a positive int, got {block_size}")):
        tiled_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), block_size=block_size)


@pytest.mark.parametrize("block_size", [2.0, True, np.float64(4)])
def test_block_size_must_be_an_int(block_size: object) -> None:
    with pytest.raises(TypeError, match="block_size must be a positive int"):
        tiled_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), block_size=block_size)


def test_block_size_of_the_wrong_type() -> None:
    with pytest.raises(TypeError, match="block_size must be a positive int, got '4'"):
        tiled_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), block_size="4")


def test_shape_errors_match_scaled_dot_product_attention() -> None:
    cases = [
        ({"k": np.ones((2, 4))}, "q has d_k=3 but k has d_k=4"),
        ({"v": np.ones((3, 5))}, "k has n_k=2 keys but v has 3 values"),
        ({"q": np.ones(3)}, "q must have at least 2 dimensions"),
        ({"q": np.ones((2, 2, 3)), "k": np.ones((3, 2, 3)), "v": np.ones((3, 2, 3))}, "the leading (batch) dimensions do not broadcast"),
        ({"k": np.ones((0, 3)), "v": np.ones((0, 3))}, "k has no keys"),
        ({"mask": np.ones((2, 2), int)}, "mask must be boolean"),
        ({"mask": np.array([[True, True], [False, False]])}, "query row 1 has every key masked"),
        ({"scale": "1"}, "scale must be a real number"),
        ({"q": np.ma.masked_array(np.ones((2, 3)))}, "q is a numpy.ma.MaskedArray"),
        ({"k": np.array([[1.0, np.nan, 0.0], [0.0, 0.0, 0.0]])}, "k contains NaN or inf"),
        ({"v": [["a", "b", "c"]] * 2}, "v must hold real numbers"),
    ]
    for overrides, message in cases:
        arguments = {"q": np.ones((2, 3)), "k": np.ones((2, 3)), "v": np.ones((2, 3)), **overrides}
        errors = []
        for attend in (lambda: scaled_dot_product_attention(**arguments), lambda: tiled_attention(**arguments, block_size=1)):
            with pytest.raises((ValueError, TypeError), match=re.escape(message)) as info:
                attend()
            errors.append((type(info.value), str(info.value)))
        assert errors[0] == errors[1], overrides


@pytest.mark.parametrize(("n_q", "n_k"), [(5, 19), (19, 5), (64, 13), (13, 64)])
@pytest.mark.parametrize("block_size", [1, 4, 7, 100])
def test_causal_with_n_q_and_n_k_apart_is_aligned_at_the_top_left_as_in_pytorch(n_q: int, n_k: int, block_size: int) -> None:
    q, k, v = inputs((2,), n_q, n_k, 8, 3, seed=n_q * n_k + block_size)
    top_left = np.tri(n_q, n_k, dtype=bool)  # query i sees keys 0..i
    expected = scaled_dot_product_attention(q, k, v, mask=top_left).output
    np.testing.assert_allclose(scaled_dot_product_attention(q, k, v, is_causal=True).output, expected, rtol=0, atol=1e-15)
    np.testing.assert_allclose(tiled_attention(q, k, v, block_size=block_size, is_causal=True), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("flag", ["is_causal", "enable_gqa"])
def test_flags_must_be_bools(flag: str) -> None:
    with pytest.raises(TypeError, match=f"{flag} must be True or False, got 'yes'"):
        tiled_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), **{flag: "yes"})
    with pytest.raises(TypeError, match=f"{flag} must be True or False, got 1"):
        scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), **{flag: 1})


@pytest.mark.parametrize("block_size", [1, 3, 8, 64])
@pytest.mark.parametrize("seed", range(4))
def test_a_mask_gives_the_plain_version_s_numbers(block_size: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    q, _, _ = inputs((2, 1), 23, 29, 8, 5, seed=seed)
    _, k, v = inputs((3,), 23, 29, 8, 5, seed=seed + 1)
    mask = rng.random((1, 23, 29)) < 0.3  # broadcast over q's batch of 2 and k's heads
    mask[..., 17:, :20] = False  # rows 17… see nothing in the first tiles: the running max stays -inf
    mask[..., rng.integers(29)] = True
    mask[..., 17:, 25] = True
    expected = scaled_dot_product_attention(q, k, v, mask=mask).output
    assert expected.shape == (2, 3, 23, 5)
    np.testing.assert_allclose(tiled_attention(q, k, v, mask=mask, block_size=block_size), expected, rtol=0, atol=1e-12)


def test_grouped_query_attention_gives_the_plain_version_s_numbers() -> None:
    q, _, _ = inputs((2, 8), 20, 20, 16, 16, seed=5)
    _, k, v = inputs((2, 2), 20, 20, 16, 16, seed=6)
    expected = scaled_dot_product_attention(q, k, v, enable_gqa=True).output
    np.testing.assert_allclose(tiled_attention(q, k, v, enable_gqa=True, block_size=6), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        tiled_attention(q, k, v, enable_gqa=True, is_causal=True, block_size=6),
        scaled_dot_product_attention(q, k, v, enable_gqa=True, is_causal=True).output, rtol=0, atol=1e-12,
    )


# ---- regressions: finite inputs give the plain version's numbers, never inf or NaN ----------------


def test_values_near_the_float64_maximum_do_not_overflow_the_running_sum() -> None:
    # Reproducer: zero q and k (equal weights of 1/4), block_size 2. Summing exp(s - m)·v over a
    # tile gave 1e308 + 1e308 = inf, then inf - inf = NaN; the plain version gives 0.
    q, k = np.zeros((4, 1)), np.zeros((4, 1))
    v = np.array([[1e308], [1e308], [-1e308], [-1e308]])
    assert scaled_dot_product_attention(q, k, v).output.tolist() == [[0.0]] * 4
    assert tiled_attention(q, k, v, block_size=2).tolist() == [[0.0]] * 4


def test_large_float32_values_over_many_keys_do_not_overflow() -> None:
    # Reproducer: v = 1e35 for 4,096 keys; Σ exp(s - m)·v reached 4,096·1e35 > 3.4e38 = inf.
    n = 4096
    q, k = np.zeros((n, 1), np.float32), np.zeros((n, 1), np.float32)
    v = np.full((n, 1), 1e35, np.float32)
    expected = scaled_dot_product_attention(q, k, v).output
    output = tiled_attention(q, k, v)
    assert output.dtype == np.float32 and np.isfinite(output).all()
    # A float32 sum of n terms is off by up to about n·eps₃₂ (recursive summation, as an SSE kernel sums):
    # the tolerance scales with the length of the sum, not a fixed 1e-5 that 4,096 terms can use up.
    rtol = 2 * n * float(np.finfo(np.float32).eps)
    np.testing.assert_allclose(output, expected, rtol=rtol)
    np.testing.assert_allclose(output, 1e35, rtol=rtol)


@pytest.mark.parametrize("scale", [0.0, -1.0, float("inf")])
def test_bad_scale(scale: float) -> None:
    with pytest.raises(ValueError, match="scale must be finite and > 0"):
        tiled_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), scale=scale)


def test_overflowing_scores_fail_loudly() -> None:
    big = np.full((2, 2), 1e200)
    with pytest.raises(ValueError, match=re.escape("q·kᵀ·scale overflowed to inf/NaN in float64")):
        tiled_attention(big, big, np.ones((2, 2)))


# ---- the online softmax, step by step -----------------------------------------------------------


def test_online_softmax_steps_on_the_worked_example() -> None:
    example = worked_example()
    steps = online_softmax_steps(example.scaled_scores, block_size=1, v=example.v)
    assert [list(step.keys) for step in steps] == [[0], [1]]
    first, second = steps
    s = example.scaled_scores
    np.testing.assert_allclose(first.running_max, s[:, 0])
    np.testing.assert_allclose(first.running_sum, [1.0, 1.0])
    np.testing.assert_allclose(first.correction, [0.0, 0.0])  # nothing to rescale yet
    np.testing.assert_allclose(second.running_max, s.max(axis=1))
    # Row 0's max stays (correction 1); row 1's grows from s[1, 0] to s[1, 1].
    np.testing.assert_allclose(second.correction, [1.0, np.exp(s[1, 0] - s[1, 1])])
    np.testing.assert_allclose(second.running_sum, np.exp(s - s.max(axis=1, keepdims=True)).sum(axis=1))
    np.testing.assert_allclose(second.weights, example.weights, rtol=0, atol=1e-15)
    np.testing.assert_allclose(second.output, example.output, rtol=0, atol=1e-15)
    np.testing.assert_allclose(first.output, example.v[[0, 0]])  # one key seen: all weight on it


@pytest.mark.parametrize("block_size", [1, 2, 3, 5, 8, 50])
def test_online_softmax_ends_at_the_softmax(block_size: int) -> None:
    rng = np.random.default_rng(block_size)
    scores, v = rng.normal(scale=5, size=(6, 17)), rng.normal(size=(17, 3))
    steps = online_softmax_steps(scores, block_size, v)
    assert len(steps) == -(-17 // block_size)
    assert steps[-1].weights.shape == scores.shape
    np.testing.assert_allclose(steps[-1].weights, softmax(scores), rtol=0, atol=1e-14)
    np.testing.assert_allclose(steps[-1].output, softmax(scores) @ v, rtol=0, atol=1e-13)
    for step in steps:  # the running max never decreases and every partial softmax sums to 1
        np.testing.assert_allclose(step.weights.sum(axis=1), 1.0)
    assert all((later.running_max >= earlier.running_max).all() for earlier, later in zip(steps, steps[1:]))
    assert online_softmax_steps(scores, block_size)[-1].output is None


def test_online_softmax_steps_errors() -> None:
    with pytest.raises(ValueError, match=re.escape("scores must be a 2-D matrix (n_q, n_k), got shape (3,)")):
        online_softmax_steps(np.ones(3), 1)
    with pytest.raises(ValueError, match="block_size must be a positive int, got 0"):
        online_softmax_steps(np.ones((2, 2)), 0)
    with pytest.raises(ValueError, match=re.escape("scores has n_k=2 keys but v has 3 values")):
        online_softmax_steps(np.ones((2, 2)), 1, v=np.ones((3, 2)))
    with pytest.raises(ValueError, match=re.escape("scores contains NaN or +inf (first at index (0, 1), value inf)")):
        online_softmax_steps([[0.0, np.inf]], 1)
    with pytest.raises(ValueError, match="scores contains NaN or \\+inf"):
        online_softmax_steps([[0.0, np.nan]], 1)
    with pytest.raises(ValueError, match="scores row 1 is entirely -inf; softmax over it is undefined"):
        online_softmax_steps([[0.0, 1.0], [-np.inf, -np.inf]], 1)


def test_online_softmax_steps_take_minus_inf_as_a_masked_key_as_softmax_does() -> None:
    scores = np.array([[-np.inf, 1.0, 2.0], [0.5, -np.inf, -1.0], [-np.inf, -np.inf, 0.0]])
    v = np.random.default_rng(3).normal(size=(3, 2))
    steps = online_softmax_steps(scores, 1, v=v)
    np.testing.assert_allclose(steps[-1].weights, softmax(scores), rtol=0, atol=1e-15)
    np.testing.assert_allclose(steps[-1].output, softmax(scores) @ v, rtol=0, atol=1e-15)
    # Row 0 saw only a masked key in the first block, row 2 in the first two: nothing yet, so no weight and no output.
    first = steps[0]
    assert np.isneginf(first.running_max[[0, 2]]).all() and not first.running_sum[[0, 2]].any()
    assert not first.weights[[0, 2]].any() and not first.output[[0, 2]].any()
    assert np.isfinite(steps[1].weights).all() and not steps[1].output[2].any()


# ---- property and memory --------------------------------------------------------------------------


@settings(max_examples=100, deadline=None, database=None)
@given(
    n=st.integers(1, 40),
    d=st.integers(1, 6),
    block_size=st.integers(1, 50),
    causal=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_property_any_block_size_gives_the_same_output(n: int, d: int, block_size: int, causal: bool, seed: int) -> None:
    q, k, v = inputs((), n, n, d, d, seed=seed)
    q *= 4  # sharper softmax rows: the running max changes often
    expected, _ = scaled_dot_product_attention(q, k, v, mask=causal_mask(n) if causal else None)
    np.testing.assert_allclose(tiled_attention(q, k, v, block_size=block_size, is_causal=causal), expected, rtol=0, atol=1e-10)


def _peak_bytes(function) -> int:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_peak_memory_is_a_small_fraction_of_the_naive_one() -> None:
    n, d = 2048, 64
    q, k, v = inputs((), n, n, d, d, dtype=np.float32)
    naive = _peak_bytes(lambda: scaled_dot_product_attention(q, k, v))
    tiled = _peak_bytes(lambda: tiled_attention(q, k, v, block_size=128))
    # naive holds the n×n float32 weights it returns (16 MiB); tiled a few 128×128 tiles and the n×d output.
    assert n * n * 4 <= naive <= 1.5 * n * n * 4
    assert tiled < 0.05 * naive, (tiled, naive)
    assert tiled < 4 * n * d * 4


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_scale_above_one_does_not_overflow_the_queries(dtype: type) -> None:
    # Reproducer: scale=4 raised "q·kᵀ·scale overflowed" (q·4 = 6.8e38 overflows float32; the scores are 1.4e29).
    import warnings

    big = 1.7e38 if dtype == np.float32 else 1.7e308
    q, k, v = np.array([[big], [1]], dtype), np.array([[1e-10], [2e-10]], dtype), np.array([[1], [2]], dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for output in (scaled_dot_product_attention(q, k, v, scale=4.0).output, attention_output(q, k, v, scale=4.0),
                       tiled_attention(q, k, v, scale=4.0)):
            np.testing.assert_allclose(output.ravel(), [2.0, 1.5])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_near_the_dtype_maximum_give_their_convex_combination(dtype: type) -> None:
    # Reproducer: tiled leaked "overflow encountered in matmul/add" for such v; plain raised where tiled returned max.
    import warnings

    top = np.finfo(dtype).max
    rng = np.random.default_rng(7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same = np.array([[top], [top]], dtype)
        q, k = np.array([[1.0], [2.0]], dtype), np.array([[1.0], [0.5]], dtype)
        for output in (scaled_dot_product_attention(q, k, same).output, attention_output(q, k, same), tiled_attention(q, k, same)):
            assert np.isfinite(output).all()
            np.testing.assert_allclose(output / top, 1.0, rtol=0, atol=4 * np.finfo(dtype).eps)  # max, to rounding
        for _ in range(100):
            v = (rng.choice([-1.0, 1.0], size=(6, 3)) * rng.uniform(0.9, 1.0, size=(6, 3)) * top).astype(dtype)
            q, k = rng.normal(size=(4, 2)).astype(dtype), rng.normal(size=(6, 2)).astype(dtype)
            plain, weights = scaled_dot_product_attention(q, k, v)
            tiled = tiled_attention(q, k, v, block_size=2)
            exact = weights.astype(np.float64) @ (v.astype(np.float64) / top)  # in units of the maximum
            np.testing.assert_allclose(plain / top, exact, rtol=0, atol=1e-5)
            np.testing.assert_allclose(attention_output(q, k, v) / top, exact, rtol=0, atol=1e-5)
            np.testing.assert_allclose(tiled / top, exact, rtol=0, atol=1e-5)


def test_causal_tiled_attention_skips_the_tiles_above_the_diagonal(monkeypatch) -> None:
    # Count the scores tiled_attention computes: the tiles above the diagonal are never multiplied.
    import qkv.tiled

    n, block = 64, 8
    q, k, v = np.random.default_rng(0).normal(size=(3, n, 4))
    computed = []
    original = qkv.tiled._online_softmax_update

    def counting_update(s, *args):
        computed.append(s.shape[-2] * s.shape[-1])
        return original(s, *args)

    monkeypatch.setattr(qkv.tiled, "_online_softmax_update", counting_update)
    causal = tiled_attention(q, k, v, is_causal=True, block_size=block)
    monkeypatch.undo()
    blocks = n // block
    assert sum(computed) == block * block * blocks * (blocks + 1) // 2  # the lower triangle of tiles and the diagonal
    np.testing.assert_allclose(causal, scaled_dot_product_attention(q, k, v, is_causal=True).output, rtol=0, atol=1e-12)
