"""scaled_dot_product_attention, attention_scores, masks, projections: shapes, values and dtypes."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest

from qkv import (
    Attention,
    attention_output,
    attention_scores,
    causal_mask,
    cross_attention,
    plain_attention,
    project,
    scaled_dot_product_attention,
    self_attention,
    softmax,
    tiled_attention,
)

RNG = np.random.default_rng(1234)


def reference_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """The formula written out row by row, independent of the library's vectorised code."""
    n_q, d_k = q.shape
    output = np.zeros((n_q, v.shape[1]))
    for i in range(n_q):
        scores = np.array([q[i] @ k[j] / np.sqrt(d_k) for j in range(k.shape[0])])
        allowed = np.ones(k.shape[0], bool) if mask is None else mask[i]
        exps = np.where(allowed, np.exp(scores - scores[allowed].max()), 0.0)
        output[i] = (exps / exps.sum()) @ v
    return output


def test_formula_on_random_inputs() -> None:
    q, k, v = RNG.normal(size=(3, 4)), RNG.normal(size=(5, 4)), RNG.normal(size=(5, 2))
    output, weights = scaled_dot_product_attention(q, k, v)
    assert output.shape == (3, 2) and weights.shape == (3, 5)
    np.testing.assert_allclose(output, reference_attention(q, k, v), rtol=1e-12, atol=1e-12)


def test_built_from_attention_scores_and_softmax() -> None:
    q, k, v = RNG.normal(size=(3, 4)), RNG.normal(size=(5, 4)), RNG.normal(size=(5, 2))
    output, weights = scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(weights, softmax(attention_scores(q, k)))
    np.testing.assert_allclose(output, weights @ v)


def test_default_scale_is_one_over_sqrt_d_k() -> None:
    q, k = RNG.normal(size=(2, 9)), RNG.normal(size=(3, 9))
    np.testing.assert_allclose(attention_scores(q, k), q @ k.T / 3.0)
    np.testing.assert_allclose(attention_scores(q, k, scale=0.5), q @ k.T * 0.5)
    v = RNG.normal(size=(3, 2))
    np.testing.assert_allclose(
        scaled_dot_product_attention(q, k, v, scale=1.0)[1], softmax(q @ k.T)
    )


def test_causal_mask_matches_reference() -> None:
    q, k, v = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3)), RNG.normal(size=(4, 5))
    output, weights = scaled_dot_product_attention(q, k, v, mask=causal_mask(4))
    assert np.all(weights[np.triu_indices(4, 1)] == 0.0)
    np.testing.assert_allclose(output, reference_attention(q, k, v, causal_mask(4)), atol=1e-12)


def test_batch_and_head_dims_broadcast() -> None:
    q = RNG.normal(size=(2, 3, 4, 8))  # (batch, heads, n_q, d_k)
    k = RNG.normal(size=(1, 3, 6, 8))  # shared over the batch
    v = RNG.normal(size=(6, 5))  # shared over batch and heads
    mask = RNG.random((4, 6)) < 0.7
    mask[:, 0] = True
    output, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    assert output.shape == (2, 3, 4, 5) and weights.shape == (2, 3, 4, 6)
    for b in range(2):
        for h in range(3):
            np.testing.assert_allclose(output[b, h], reference_attention(q[b, h], k[0, h], v, mask), atol=1e-12)


def test_weights_get_the_batch_dims_of_v_too() -> None:
    q, k, v = RNG.normal(size=(2, 3)), RNG.normal(size=(4, 3)), RNG.normal(size=(5, 4, 2))
    output, weights = scaled_dot_product_attention(q, k, v)
    assert output.shape == (5, 2, 2) and weights.shape == (5, 2, 4)


def test_causal_mask_shape_and_type() -> None:
    mask = causal_mask(5)
    assert mask.dtype == np.bool_ and mask.shape == (5, 5)
    assert np.array_equal(mask, np.tril(np.ones((5, 5), bool)))
    assert causal_mask(np.int64(2)).shape == (2, 2)


def test_self_attention_is_projection_then_attention() -> None:
    x = RNG.normal(size=(2, 5, 6))
    w_q, w_k, w_v = RNG.normal(size=(6, 4)), RNG.normal(size=(6, 4)), RNG.normal(size=(6, 3))
    output, weights = self_attention(x, w_q, w_k, w_v, mask=causal_mask(5))
    expected = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask=causal_mask(5))
    np.testing.assert_allclose(output, expected[0])
    np.testing.assert_allclose(weights, expected[1])
    np.testing.assert_allclose(project(x, w_q), x @ w_q)


def test_cross_attention_takes_q_from_one_sequence_and_kv_from_the_other() -> None:
    x_q, x_kv = RNG.normal(size=(3, 4)), RNG.normal(size=(7, 6))
    w_q, w_k, w_v = RNG.normal(size=(4, 5)), RNG.normal(size=(6, 5)), RNG.normal(size=(6, 2))
    output, weights = cross_attention(x_q, x_kv, w_q, w_k, w_v)
    assert output.shape == (3, 2) and weights.shape == (3, 7)
    np.testing.assert_allclose(output, reference_attention(x_q @ w_q, x_kv @ w_k, x_kv @ w_v), atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_dtype_is_kept(dtype: type) -> None:
    q, k, v = (RNG.normal(size=(3, 4)).astype(dtype) for _ in range(3))
    output, weights = scaled_dot_product_attention(q, k, v, mask=causal_mask(3))
    assert output.dtype == dtype and weights.dtype == dtype
    assert attention_scores(q, k).dtype == dtype
    assert self_attention(q, q.T, q.T, q.T)[0].dtype == dtype


def test_lists_and_ints_become_float64() -> None:
    output, weights = scaled_dot_product_attention([[1, 0]], [[1, 0], [0, 1]], np.array([[1, 2], [3, 4]]))
    assert output.dtype == np.float64 and weights.dtype == np.float64
    assert project([[1, 2]], [[1], [1]]).dtype == np.float64


def test_mixed_floats_follow_numpy_promotion() -> None:
    q32 = np.ones((2, 3), np.float32)
    q16 = np.ones((2, 3), np.float16)
    assert scaled_dot_product_attention(q16, q32, q16)[0].dtype == np.float32
    assert scaled_dot_product_attention(q32, q32, np.ones((2, 3)))[0].dtype == np.float64
    assert scaled_dot_product_attention(q32, q32, [[1, 2], [3, 4]])[0].dtype == np.float64


def test_float32_scale_does_not_widen_the_dtype() -> None:
    q = np.ones((2, 3), np.float32)
    assert attention_scores(q, q, scale=np.float64(0.5)).dtype == np.float32


def test_inputs_are_not_modified() -> None:
    q, k, v = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4)), RNG.normal(size=(3, 2))
    copies = [a.copy() for a in (q, k, v)]
    scaled_dot_product_attention(q, k, v, mask=causal_mask(3))
    for array, copy in zip((q, k, v), copies):
        assert np.array_equal(array, copy)


# ---- the PyTorch surface: keyword-only options, a named tuple, is_causal, enable_gqa ---------------


def test_the_result_is_a_named_tuple_of_output_and_weights() -> None:
    q, k, v = RNG.normal(size=(3, 4)), RNG.normal(size=(5, 4)), RNG.normal(size=(5, 2))
    result = scaled_dot_product_attention(q, k, v)
    output, weights = result
    assert isinstance(result, Attention) and result._fields == ("output", "weights")
    assert result.output is output and result.weights is weights


def test_options_are_keyword_only() -> None:
    # PyTorch's 4th and 5th positional arguments are attn_mask and dropout_p: a positional
    # 5th argument here (once `scale`) would silently mean something else. Both refuse.
    q = np.ones((2, 3))
    with pytest.raises(TypeError, match="positional argument"):
        scaled_dot_product_attention(q, q, q, causal_mask(2))  # type: ignore[misc]
    with pytest.raises(TypeError, match="positional argument"):
        tiled_attention(q, q, q, 2)  # type: ignore[misc]
    with pytest.raises(TypeError, match="positional argument"):
        attention_scores(q, q, 1.0)  # type: ignore[misc]
    with pytest.raises(TypeError, match="positional argument"):
        self_attention(q, np.ones((3, 3)), np.ones((3, 3)), np.ones((3, 3)), causal_mask(2))  # type: ignore[misc]


def test_is_causal_is_the_causal_mask() -> None:
    q, k, v = RNG.normal(size=(2, 6, 4)), RNG.normal(size=(2, 6, 4)), RNG.normal(size=(2, 6, 3))
    expected = scaled_dot_product_attention(q, k, v, mask=causal_mask(6))
    result = scaled_dot_product_attention(q, k, v, is_causal=True)
    np.testing.assert_array_equal(result.weights, expected.weights)
    np.testing.assert_array_equal(result.output, expected.output)


def test_is_causal_and_a_mask_together_are_refused_as_in_pytorch() -> None:
    q = np.ones((2, 3))
    with pytest.raises(ValueError, match=r"pass either mask= or is_causal=True, not both"):
        scaled_dot_product_attention(q, q, q, mask=causal_mask(2), is_causal=True)


def test_grouped_query_attention_shares_each_kv_head_among_a_group_of_query_heads() -> None:
    q = RNG.normal(size=(2, 6, 5, 8))  # (batch, 6 query heads, n_q, d_k)
    k, v = RNG.normal(size=(2, 2, 7, 8)), RNG.normal(size=(2, 2, 7, 3))  # 2 K/V heads: groups of 3
    result = scaled_dot_product_attention(q, k, v, enable_gqa=True)
    assert result.output.shape == (2, 6, 5, 3) and result.weights.shape == (2, 6, 5, 7)
    for head in range(6):
        expected = scaled_dot_product_attention(q[:, head], k[:, head // 3], v[:, head // 3])
        np.testing.assert_allclose(result.output[:, head], expected.output, rtol=0, atol=1e-14)
    with pytest.raises(ValueError, match="for grouped-query attention pass enable_gqa=True"):
        scaled_dot_product_attention(q, k, v)
    with pytest.raises(ValueError, match="q has 6 heads, not a multiple of k's 4 heads"):
        scaled_dot_product_attention(q, RNG.normal(size=(2, 4, 7, 8)), RNG.normal(size=(2, 4, 7, 3)), enable_gqa=True)
    with pytest.raises(ValueError, match=r"enable_gqa=True needs a heads axis \(..., heads, n, d\)"):
        scaled_dot_product_attention(q[0, 0], k[0, 0], v[0, 0], enable_gqa=True)


def traced_peak(call) -> int:  # type: ignore[no-untyped-def]
    """Peak bytes numpy allocated while `call()` ran (the inputs were made before)."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("n_q", [1, 16, 200])  # the decode path, its largest, and the key blocks
def test_grouped_query_attention_copies_no_k_or_v(n_q: int) -> None:
    """Each K/V head is read by its group of query heads where it lies: no (…, heads, n_k, d) copy of k or v is
    made (4 times k, 32 MiB), only arrays the size of the queries, the output and the scores (at decode every
    head's n_q·n_k of them, 4 MiB at n_q = 16; else a block's worth)."""
    q = RNG.normal(size=(1, 8, n_q, 128)).astype(np.float32)  # 8 query heads
    k, v = (RNG.normal(size=(1, 2, 8192, 128)).astype(np.float32) for _ in range(2))  # 2 K/V heads: 8 MiB each
    attention_output(q[..., :1, :], k[..., :4, :], v[..., :4, :], enable_gqa=True)  # first calls: caches of their own
    grouped = traced_peak(lambda: attention_output(q, k, v, enable_gqa=True))
    assert grouped < k.nbytes * 3 / 4, f"peak {grouped / 2**20:.2f} MiB beside k's {k.nbytes / 2**20:.0f} MiB"
    repeated = [np.repeat(x, 4, axis=1) for x in (k, v)]  # what PyTorch's math path and qkv before did
    np.testing.assert_allclose(attention_output(q, k, v, enable_gqa=True), attention_output(q, *repeated), rtol=0,
                               atol=2e-6)


# ---- float16: computed in float32, returned in float16 ---------------------------------------------


def test_float16_is_as_accurate_as_float32_rounded_to_float16() -> None:
    q, k, v = (RNG.normal(size=(64, 32)).astype(np.float16) for _ in range(3))
    exact = scaled_dot_product_attention(*(a.astype(np.float64) for a in (q, k, v)))
    result = scaled_dot_product_attention(q, k, v)
    # Within one float16 rounding (2⁻¹¹ relative) of the exact answer, plus float32's own.
    np.testing.assert_allclose(result.output, exact.output, rtol=2**-11, atol=2**-14)
    np.testing.assert_allclose(result.weights, exact.weights, rtol=2**-11, atol=2**-24)


# ---- regressions: no silent wrong answers ----------------------------------------------------------


@pytest.mark.parametrize("name", ["q", "k", "v"])
def test_masked_arrays_are_refused_not_silently_unmasked(name: str) -> None:
    # Reproducer: np.ma inputs lost their mask, and the hidden entries were used as data.
    arrays = {"q": np.ones((2, 3)), "k": np.ones((2, 3)), "v": np.ones((2, 3))}
    arrays[name] = np.ma.masked_array([[1.0, 2.0, 3.0], [4.0, 5.0, 1e9]], mask=[[0, 0, 0], [0, 0, 1]])
    with pytest.raises(TypeError, match=rf"{name} is a numpy.ma.MaskedArray, whose mask qkv would ignore"):
        scaled_dot_product_attention(**arrays)
    with pytest.raises(TypeError, match="x is a numpy.ma.MaskedArray"):
        softmax(arrays[name])
    with pytest.raises(TypeError, match="mask is a numpy.ma.MaskedArray"):
        scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), mask=np.ma.masked_array(causal_mask(2)))


def test_softmax_of_extreme_logits_is_quiet() -> None:
    # Reproducer: softmax([1e308, -1e308]) leaked "RuntimeWarning: overflow encountered in subtract".
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert softmax([1e308, -1e308]).tolist() == [1.0, 0.0]
        q, k = np.array([[1e154]]), np.array([[1e154], [-1e154]])
        assert scaled_dot_product_attention(q, k, np.eye(2), scale=1.0).weights.tolist() == [[1.0, 0.0]]


@pytest.mark.parametrize(("dtype", "n"), [(np.float32, 512), (np.float64, 512), (np.float16, 4096)])
def test_the_weights_are_the_only_n_by_n_array(dtype: type, n: int) -> None:
    q, k, v = (RNG.normal(size=(n, 64)).astype(dtype) for _ in range(3))
    scaled_dot_product_attention(q[:2], k[:2], v[:2])  # first calls allocate caches of their own
    tracemalloc.start()
    try:
        scaled_dot_product_attention(q, k, v)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    matrix = n * n * np.dtype(dtype).itemsize  # one n×n array of the input dtype: the weights returned
    assert matrix <= peak <= 1.5 * matrix, peak / matrix


def test_plain_attention_scales_q_before_q_times_k_can_overflow() -> None:
    # q·kᵀ = ±1e40 overflows float32, q·kᵀ·scale = ±10 does not: the five steps compute it as the kernels do.
    q, k = np.array([[1e20]], np.float32), np.array([[1e20], [-1e20]], np.float32)
    v = np.array([[1.0], [2.0]], np.float32)
    for attention in (plain_attention, scaled_dot_product_attention):
        np.testing.assert_allclose(attention(q, k, v, scale=1e-39).weights, [[1.0, 0.0]], rtol=0, atol=1e-6)
    for attention in (attention_output, tiled_attention):
        np.testing.assert_allclose(attention(q, k, v, scale=1e-39), [[1.0]], rtol=0, atol=1e-6)


def test_float16_with_v_of_its_own_batch_dims_is_the_float32_result_rounded_once() -> None:
    # The weights meet v in float32 and only the output is rounded to float16, as when q and k share v's batch dims.
    q, k = RNG.normal(size=(16, 8)).astype(np.float16), RNG.normal(size=(24, 8)).astype(np.float16)
    v = RNG.normal(size=(2, 3, 24, 8)).astype(np.float16)  # batch dims that q and k do not have
    exact = plain_attention(*(x.astype(np.float64) for x in (q, k, v))).output
    half_step = np.spacing(np.abs(exact).astype(np.float16)).astype(np.float64) / 2  # float16's rounding at each output
    for output in (scaled_dot_product_attention(q, k, v).output, attention_output(q, k, v)):
        assert output.dtype == np.float16
        error = np.abs(output.astype(np.float64) - exact)
        assert (error <= half_step + 1e-6).all(), f"{(error > half_step + 1e-6).sum()} outputs off by more than rounding"
    weights = scaled_dot_product_attention(q, k, v).weights
    np.testing.assert_allclose(weights.astype(np.float64), plain_attention(q, k, v).weights.astype(np.float64), rtol=0,
                               atol=float(np.finfo(np.float16).eps))
