"""Every bad input fails loudly, with the error type and a message that names the shapes or values."""

from __future__ import annotations

import re

import numpy as np
import pytest

from qkv import (
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
from qkv._checks import check_computed_finite
from qkv.analysis import (
    asymmetry,
    dot_product_variance,
    scaling_factor,
    scaling_study,
    softmax_entropy,
    softmax_jacobian,
)
from qkv.complexity import (
    attention_matrix_bytes,
    attention_matrix_elements,
    format_bytes,
    format_count,
    memory_table,
    step_multiplications,
)
from qkv.examples import IllustrativeSelfAttention, cat_sat_on_mat, worked_example

Q = np.ones((2, 3))
K = np.ones((2, 3))
V = np.ones((2, 5))
X = np.ones((2, 4))
W = np.ones((4, 3))


def attend(**overrides: object) -> None:
    """Call scaled_dot_product_attention; attention_output, given the same arguments, must fail the same way."""
    arguments = {"q": Q, "k": K, "v": V, **overrides}
    try:
        scaled_dot_product_attention(**arguments)
    except (TypeError, ValueError) as error:
        with pytest.raises(type(error), match=re.escape(str(error))):
            attention_output(**arguments)
        raise
    attention_output(**arguments)


# ---- shapes -------------------------------------------------------------------------------------


def test_mismatched_d_k() -> None:
    expected = "q has d_k=3 but k has d_k=4 (q.shape=(2, 3), k.shape=(2, 4))"
    with pytest.raises(ValueError, match=re.escape(expected)):
        attend(k=np.ones((2, 4)))
    with pytest.raises(ValueError, match=re.escape(expected)):
        attention_scores(Q, np.ones((2, 4)))


def test_k_and_v_with_different_n_k() -> None:
    expected = "k has n_k=2 keys but v has 3 values (k.shape=(2, 3), v.shape=(3, 5))"
    with pytest.raises(ValueError, match=re.escape(expected)):
        attend(v=np.ones((3, 5)))


def test_batch_dims_that_do_not_broadcast() -> None:
    expected = "the leading (batch) dimensions do not broadcast: q.shape=(2, 2, 3), k.shape=(3, 2, 3)"
    with pytest.raises(ValueError, match=re.escape(expected)):
        attend(q=np.ones((2, 2, 3)), k=np.ones((3, 2, 3)), v=np.ones((3, 2, 5)))


@pytest.mark.parametrize("name", ["q", "k", "v"])
def test_fewer_than_two_dims(name: str) -> None:
    with pytest.raises(ValueError, match=rf"{name} must have at least 2 dimensions .* got shape \(3,\)"):
        attend(**{name: np.ones(3)})


def test_scalar_input() -> None:
    with pytest.raises(ValueError, match=r"q must have at least 2 dimensions .* got shape \(\)"):
        attend(q=1.0)


@pytest.mark.parametrize(
    ("q_shape", "kv_batch", "d_v"), [((0, 3), (), 5), ((0, 2, 3), (), 5), ((4, 0, 2, 3), (1,), 5), ((2, 3), (), 0)]
)
def test_an_empty_batch_no_queries_or_d_v_0_give_empty_results_as_in_pytorch(
    q_shape: tuple[int, ...], kv_batch: tuple[int, ...], d_v: int
) -> None:
    q, k, v = np.ones(q_shape), np.ones((*kv_batch, 2, 3)), np.ones((*kv_batch, 2, d_v))
    for attention in (scaled_dot_product_attention, attention_output, tiled_attention):
        result = attention(q=q, k=k, v=v)
        output = result[0] if attention is scaled_dot_product_attention else result
        assert output.shape == np.broadcast_shapes(q_shape[:-2], kv_batch) + (q_shape[-2], d_v)


def test_no_keys_is_an_error_where_pytorch_returns_zeros() -> None:
    expected = "k has no keys (k.shape=(0, 3)); softmax over no keys is undefined"
    for attention in (scaled_dot_product_attention, attention_output, tiled_attention):
        with pytest.raises(ValueError, match=re.escape(expected)):
            attention(q=Q, k=np.ones((0, 3)), v=np.ones((0, 5)))


def test_d_k_of_0_is_an_error_where_pytorch_averages_v() -> None:
    with pytest.raises(ValueError, match=re.escape("q and k have d_k=0 (q.shape=(2, 0)); there is nothing to compare")):
        attend(q=np.ones((2, 0)), k=np.ones((2, 0)))
    with pytest.raises(ValueError, match=re.escape("q has d_k=3 but k has d_k=0")):
        attend(k=np.ones((2, 0)))


def test_ragged_lists() -> None:
    with pytest.raises(ValueError, match="q is not a rectangular array"):
        attend(q=[[1.0, 2.0, 3.0], [1.0]])


# ---- values -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["q", "k", "v"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_name_the_argument(name: str, bad: float) -> None:
    array = {"q": Q, "k": K, "v": V}[name].copy()
    array[1, 2] = bad
    with pytest.raises(ValueError, match=rf"{name} contains NaN or inf \(first at index \(1, 2\)"):
        attend(**{name: array})


@pytest.mark.parametrize("name", ["x", "w_q", "w_k", "w_v"])
def test_nan_in_self_attention_inputs(name: str) -> None:
    arguments = {"x": X.copy(), "w_q": W.copy(), "w_k": W.copy(), "w_v": W.copy()}
    arguments[name][0, 0] = np.nan
    with pytest.raises(ValueError, match=f"{name} contains NaN or inf"):
        self_attention(**arguments)


@pytest.mark.parametrize("value", ["abc", None, object()])
def test_non_numeric_data_is_a_type_error(value: object) -> None:
    with pytest.raises(TypeError, match="k must hold real numbers"):
        attend(k=[[value, value, value]] * 2)


def test_string_and_complex_arrays_are_type_errors() -> None:
    with pytest.raises(TypeError, match=r"q must hold real numbers, got dtype <U1"):
        attend(q=np.array([["a", "b", "c"]] * 2))
    with pytest.raises(TypeError, match="v must hold real numbers, got dtype complex128"):
        attend(v=V + 1j)


@pytest.mark.parametrize("scale", [0, -1.0, np.nan, np.inf, -np.inf])
def test_bad_scale_values(scale: float) -> None:
    with pytest.raises(ValueError, match="scale must be finite and > 0"):
        attend(scale=scale)
    with pytest.raises(ValueError, match="scale must be finite and > 0"):
        attention_scores(Q, K, scale=scale)


@pytest.mark.parametrize("scale", ["0.5", [0.5], True, 1 + 2j])
def test_bad_scale_types(scale: object) -> None:
    with pytest.raises(TypeError, match="scale must be a real number"):
        attend(scale=scale)


def test_float32_overflow_is_reported_not_returned_as_inf() -> None:
    big = np.full((2, 3), 1e20, np.float32)  # 1e20·1e20·3/√3 > 3.4e38, the float32 maximum
    for attention in (scaled_dot_product_attention, attention_output, tiled_attention):
        with pytest.raises(ValueError, match=r"q·kᵀ·scale overflowed to inf/NaN in float32"):
            attention(q=big, k=big, v=big)


def test_float16_scores_beyond_the_float16_maximum_are_computed_in_float32() -> None:
    big = np.full((2, 3), 200.0, np.float16)  # 200·200·3/√3 ≈ 69,282 > 65504, the float16 maximum
    output, weights = scaled_dot_product_attention(big, big, big)
    assert output.dtype == weights.dtype == np.float16
    assert np.array_equal(output, big) and np.array_equal(weights, np.full((2, 2), 0.5, np.float16))
    # Reproducer: a row of 64s, q·k = 65,536 > 65504. It raised an overflow error; PyTorch returns 64.
    q = np.full((1, 16), 64, np.float16)
    assert np.array_equal(scaled_dot_product_attention(q, q, q).output, q)


def test_float64_overflow_in_the_projection() -> None:
    with pytest.raises(ValueError, match=r"x·w_q overflowed"):
        self_attention(np.full((2, 4), 1e200), np.full((4, 3), 1e200), W, W)


def test_float16_weighted_sum_at_the_float16_maximum() -> None:
    # 27 equal float16 weights of 1/27 sum to 1.0003 after rounding: in float16, values at the
    # float16 maximum (65504) gave inf. In float32 the weights sum to 1 within 1e-7 and the
    # output rounds back to 65504 exactly, the mean of the values.
    q, k = np.zeros((1, 3), np.float16), np.zeros((27, 3), np.float16)
    v = np.full((27, 1), 65504.0, np.float16)
    output, weights = scaled_dot_product_attention(q, k, v)
    assert output.dtype == np.float16 and output[0, 0] == 65504.0
    assert tiled_attention(q, k, v, block_size=4)[0, 0] == 65504.0


# ---- masks --------------------------------------------------------------------------------------


def test_mask_that_does_not_broadcast_names_both_shapes() -> None:
    expected = "mask of shape (3, 3) does not broadcast to the scores' shape (..., n_q, n_k) = (2, 2)"
    with pytest.raises(ValueError, match=re.escape(expected)):
        attend(mask=np.ones((3, 3), bool))


def test_mask_may_not_add_batch_dims() -> None:
    expected = "mask of shape (4, 2, 2) does not broadcast to the scores' shape (..., n_q, n_k) = (2, 2)"
    with pytest.raises(ValueError, match=re.escape(expected)):
        attend(mask=np.ones((4, 2, 2), bool))


@pytest.mark.parametrize("mask", [np.ones((2, 2)), np.ones((2, 2), int), [[1, 0], [1, 1]]])
def test_mask_must_be_boolean(mask: object) -> None:
    with pytest.raises(TypeError, match=r"mask must be boolean \(True = may attend\), got dtype (float64|int64)"):
        attend(mask=mask)


def test_fully_masked_row_without_batch() -> None:
    mask = np.array([[True, False], [False, False]])
    with pytest.raises(ValueError, match=r"^query row 1 has every key masked"):
        attend(mask=mask)


def test_fully_masked_row_names_the_batch_index() -> None:
    q = np.ones((2, 2, 2, 3))
    mask = np.ones((2, 2, 2, 2), bool)
    mask[1, 0, 0] = False
    with pytest.raises(ValueError, match=re.escape("query row 0 (batch index (1, 0)) has every key masked")):
        attend(q=q, k=q, v=q, mask=mask)


def test_fully_masked_row_after_broadcasting() -> None:
    q = np.ones((3, 2, 3))
    mask = np.array([[False, False], [True, True]])  # broadcast over the batch
    with pytest.raises(ValueError, match=re.escape("query row 0 (batch index (0,)) has every key masked")):
        attend(q=q, mask=mask)



@pytest.mark.parametrize(("q_shape", "mask"), [((0, 2, 3), np.zeros((1, 1, 2), bool)), ((0, 3), np.zeros(2, bool)),
                                               ((2, 0, 3), np.array([[True, True], [False, False]])[:0])])
def test_a_fully_masked_row_meeting_an_empty_batch_or_no_queries_gives_the_empty_result(q_shape, mask) -> None:
    # No query row exists to have every key masked: the result is empty, as in PyTorch.
    q, k, v = np.ones(q_shape), np.ones(q_shape[:-2] + (2, 3)), np.ones(q_shape[:-2] + (2, 4))
    for attention in (scaled_dot_product_attention, attention_output, tiled_attention, plain_attention):
        result = attention(q, k, v, mask=mask)
        output = result if isinstance(result, np.ndarray) else result.output
        assert output.shape == q_shape[:-1] + (4,)

# ---- projections ---------------------------------------------------------------------------------


def test_x_and_w_widths_must_match() -> None:
    expected = "x has d_model=4 but w_q has 5 rows (x.shape=(2, 4), w_q.shape=(5, 3))"
    with pytest.raises(ValueError, match=re.escape(expected)):
        self_attention(X, np.ones((5, 3)), np.ones((5, 3)), W)
    with pytest.raises(ValueError, match=re.escape("x has d_model=4 but w has 5 rows")):
        project(X, np.ones((5, 3)))


def test_w_q_and_w_k_need_the_same_d_k() -> None:
    expected = "w_q has d_k=3 but w_k has d_k=4 (w_q.shape=(4, 3), w_k.shape=(4, 4))"
    with pytest.raises(ValueError, match=re.escape(expected)):
        self_attention(X, W, np.ones((4, 4)), W)
    with pytest.raises(ValueError, match=re.escape(expected)):
        cross_attention(X, X, W, np.ones((4, 4)), W)


def test_cross_attention_names_x_q_and_x_kv() -> None:
    with pytest.raises(ValueError, match=re.escape("x_kv has d_model=6 but w_k has 4 rows")):
        cross_attention(X, np.ones((3, 6)), W, W, W)
    with pytest.raises(ValueError, match=re.escape("x_q has d_model=4 but w_q has 2 rows")):
        cross_attention(X, X, np.ones((2, 3)), W, W)


@pytest.mark.parametrize("shape", [(4,), (2, 4, 3)])
def test_weights_must_be_matrices(shape: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match=r"w_v must (be a 2-D matrix|have at least 2 dimensions)"):
        self_attention(X, W, W, np.ones(shape))


def test_self_attention_mask_errors_pass_through() -> None:
    with pytest.raises(ValueError, match="query row 0 has every key masked"):
        self_attention(X, W, W, W, mask=np.array([[False, False], [True, True]]))


# ---- softmax ------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_softmax_rejects_nan_and_plus_inf(bad: float) -> None:
    with pytest.raises(ValueError, match=r"x contains NaN or \+inf"):
        softmax([[1.0, bad]])


def test_softmax_rejects_all_minus_inf_rows() -> None:
    with pytest.raises(ValueError, match="x has a row that is entirely -inf along axis 1"):
        softmax([[0.0, 1.0], [-np.inf, -np.inf]])


def test_softmax_rejects_empty_scalar_and_strings() -> None:
    with pytest.raises(ValueError, match=r"x is empty along axis 1: shape \(2, 0\)"):
        softmax(np.ones((2, 0)))
    with pytest.raises(ValueError, match="x must have at least 1 dimension"):
        softmax(1.0)
    with pytest.raises(TypeError, match="x must hold real numbers"):
        softmax(["a", "b"])


def test_softmax_rejects_a_bad_axis() -> None:
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
        softmax(np.ones((2, 2)), axis=2)


# ---- masks, examples, analysis, complexity --------------------------------------------------------


@pytest.mark.parametrize("n", [0, -3])
def test_causal_mask_needs_a_positive_int(n: object) -> None:
    with pytest.raises(ValueError, match=rf"n must be a positive int, got {re.escape(repr(n))}"):
        causal_mask(n)


@pytest.mark.parametrize("n", ["3", None, [3], 2.5, 3.0, True])
def test_causal_mask_rejects_non_numbers(n: object) -> None:
    with pytest.raises(TypeError, match="n must be a positive int"):
        causal_mask(n)


def test_worked_example_overrides_are_checked() -> None:
    with pytest.raises(ValueError, match="tokens has 2 labels but x has 3 rows"):
        worked_example(x=np.ones((3, 4)))
    with pytest.raises(ValueError, match=re.escape("x has d_model=4 but w_q has 3 rows")):
        worked_example(w_q=np.ones((3, 3)))
    with pytest.raises(ValueError, match=re.escape("w_q has d_k=2 but w_k has d_k=3")):
        worked_example(w_q=np.ones((4, 2)))


def test_analysis_errors() -> None:
    expected = "unknown scaling strategy 'sqrt'; choose one of ('none', 'd_k', 'sqrt_d_k')"
    with pytest.raises(ValueError, match=re.escape(expected)):
        scaling_factor("sqrt", 4)
    with pytest.raises(ValueError, match=re.escape("strategies entry 'log' is not a scaling strategy; choose from")):
        scaling_study([4], strategies=("none", "log"))
    with pytest.raises(TypeError, match=re.escape("strategies entry 4 is not a scaling strategy")):
        scaling_study([4], strategies=[4])
    with pytest.raises(ValueError, match="d_k must be a positive int, got 0"):
        scaling_factor("d_k", 0)
    with pytest.raises(ValueError, match="d_ks entry must be a positive int, got -1"):
        dot_product_variance([4, -1])
    with pytest.raises(ValueError, match="d_ks is empty"):
        scaling_study([])
    with pytest.raises(ValueError, match="n_samples must be a positive int, got 0"):
        dot_product_variance([4], n_samples=0)
    with pytest.raises(ValueError, match=r"weights must be a square matrix \(n, n\), got shape \(2, 3\)"):
        asymmetry(np.full((2, 3), 1 / 3))
    with pytest.raises(ValueError, match="weights has negative entries"):
        softmax_entropy([[1.5, -0.5]])
    with pytest.raises(ValueError, match="p rows must sum to 1 along the last axis"):
        softmax_jacobian([0.2, 0.2])
    with pytest.raises(ValueError, match="p must have at least 1 dimension"):
        softmax_jacobian(1.0)
    with pytest.raises(ValueError, match="weights must have at least 1 dimension"):  # as softmax_jacobian refuses it
        softmax_entropy(1.0)
    with pytest.raises(ValueError, match="weights contains NaN or inf"):
        asymmetry([[np.nan, 0.0], [0.0, 1.0]])


def test_complexity_errors() -> None:
    with pytest.raises(ValueError, match="n must be a positive int, got 0"):
        step_multiplications(0, 4)
    with pytest.raises(TypeError, match="d must be a positive int, got 1.5 of type float"):
        step_multiplications(4, 1.5)
    with pytest.raises(ValueError, match="heads must be a positive int, got 0"):
        attention_matrix_elements(4, heads=0)
    with pytest.raises(TypeError, match="layers must be a positive int"):
        attention_matrix_elements(4, layers="2")
    with pytest.raises(ValueError, match="unknown dtype 'float8x'"):
        attention_matrix_bytes(4, "float8x")
    with pytest.raises(ValueError, match="nbytes must be a non-negative int, got -1"):
        format_bytes(-1)
    with pytest.raises(TypeError, match="n must be a non-negative int, got 2.5 of type float"):
        format_count(2.5)
    with pytest.raises(ValueError, match="^ns entry must be a positive int, got 0"):  # the argument, not an n inside
        memory_table([512, 0])
    with pytest.raises(TypeError, match="^ns entry must be a positive int, got 2.5"):
        memory_table([2.5])


def test_illustrations_check_their_labels() -> None:
    ex = cat_sat_on_mat()
    with pytest.raises(ValueError, match="tokens has 3 labels but x has 4 rows"):
        IllustrativeSelfAttention(ex.tokens[:3], ex.features, ex.x, ex.w_q, ex.w_k, ex.w_v)
    with pytest.raises(ValueError, match="features names 4 columns but x has 5"):
        IllustrativeSelfAttention(ex.tokens, ex.features[:4], ex.x, ex.w_q, ex.w_k, ex.w_v)
    with pytest.raises(ValueError, match=r"x must be a 2-D matrix \(n, d_model\), got shape \(1, 4, 5\)"):
        IllustrativeSelfAttention(ex.tokens, ex.features, ex.x[None], ex.w_q, ex.w_k, ex.w_v)
    with pytest.raises(ValueError, match=re.escape("'dog' is not one of the tokens ('猫', '坐在', '垫子', '上')")):
        ex.weights_of("dog")


@pytest.mark.parametrize("dtype", ["str", "complex64", "bf17", np.complex64])
def test_attention_matrix_bytes_rejects_non_numeric_dtypes(dtype: object) -> None:
    with pytest.raises(ValueError, match="unknown dtype"):
        attention_matrix_bytes(4, dtype)


@pytest.mark.parametrize("dtype", [None, 2, [np.float16]])
def test_attention_matrix_bytes_rejects_what_is_not_a_dtype(dtype: object) -> None:
    with pytest.raises(TypeError, match="dtype must be a numpy dtype or its name"):
        attention_matrix_bytes(4, dtype)


def test_torch_tensors_that_numpy_cannot_read_are_type_errors(torch) -> None:
    with pytest.raises(TypeError, match=r"^q cannot be read as a numpy array .*pass q.detach\(\)"):
        scaled_dot_product_attention(torch.ones(2, 2, requires_grad=True), np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(TypeError, match=r"^k is bfloat16, which qkv does not support"):
        scaled_dot_product_attention(np.ones((2, 2)), torch.ones(2, 2, dtype=torch.bfloat16), np.ones((2, 2)))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("where", [0, 2**16 - 1, 2**16, 3 * 2**16 + 5])  # the first, last and next piece, and the last
def test_a_computed_inf_or_nan_is_found_in_any_piece(dtype, where: int) -> None:
    array = np.ones(3 * 2**16 + 6, dtype)
    check_computed_finite(array, "weights·v")  # finite: nothing to say
    for bad in (np.inf, np.nan):
        array[where] = bad
        with pytest.raises(ValueError, match="weights·v overflowed to inf/NaN"):
            check_computed_finite(array, "weights·v")
        with pytest.raises(ValueError, match="weights·v overflowed to inf/NaN"):
            check_computed_finite(array[::-1], "weights·v")  # strided: looked at whole
        array[where] = 1
