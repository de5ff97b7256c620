"""attention_output's decode path (qkv/_decode.py): the checked path's output, and every refusal it makes."""

from __future__ import annotations

import numpy as np
import pytest

from qkv import attention_output, plain_attention
from qkv._decode import DECODE_ROWS, FLOAT16_BLOCK, _group_as_rows, applies, decode_output
from qkv._inputs import unchecked_inputs

RNG = np.random.default_rng(37)
TOLERANCE = {np.float16: 1e-3, np.float32: 2e-6, np.float64: 1e-13}
DTYPES = [np.float16, np.float32, np.float64]


def decode_inputs(n_q=1, n_k=300, heads=3, d=8, dtype=np.float32):
    """q (1, heads, n_q, d) against k, v (1, heads, n_k, d): the decode layout."""
    q = RNG.standard_normal((1, heads, n_q, d)).astype(dtype)
    k, v = (RNG.standard_normal((1, heads, n_k, d)).astype(dtype) for _ in range(2))
    return q, k, v


def unchecked(q, k, v, **options):
    defaults = {"mask": None, "scale": None, "is_causal": False, "enable_gqa": False}
    return unchecked_inputs(q, k, v, **(defaults | options))


def assert_as_plain(q, k, v, **options):
    """decode_output gives an output (it applies), and it is plain_attention's to rounding."""
    output = decode_output(unchecked(q, k, v, **options))
    assert output is not None and output.dtype == q.dtype
    expected = plain_attention(q, k, v, **options).output
    np.testing.assert_allclose(output.astype(np.float64), expected.astype(np.float64), rtol=TOLERANCE[q.dtype.type],
                               atol=TOLERANCE[q.dtype.type])
    np.testing.assert_array_equal(attention_output(q, k, v, **options), output)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_q", [1, 4, DECODE_ROWS])
def test_decode_is_the_five_steps(dtype, n_q: int) -> None:
    assert_as_plain(*decode_inputs(n_q=n_q, dtype=dtype))


def test_float16_blocks_cover_every_key() -> None:
    """Over FLOAT16_BLOCK numbers k and v are widened in several blocks, the last one shorter."""
    q, k, v = decode_inputs(n_k=FLOAT16_BLOCK // (2 * 8) + 7, heads=2, dtype=np.float16)
    assert_as_plain(q, k, v)


@pytest.mark.parametrize("options", [{"scale": 3.0}, {"scale": 1e-3}, {"mask": RNG.random((1, 3, 1, 300)) < 0.5}])
def test_decode_options(options: dict) -> None:
    q, k, v = decode_inputs()
    mask = options.get("mask")
    if mask is not None:
        mask[..., 0] = True
    assert_as_plain(q, k, v, **options)


def test_broadcast_and_v_with_batch_dims_of_its_own() -> None:
    q = RNG.standard_normal((2, 1, 1, 8))  # (batch, heads, n_q, d): q broadcast over heads
    k = RNG.standard_normal((1, 3, 50, 8))
    v = RNG.standard_normal((2, 3, 50, 5))
    assert_as_plain(q, k, v, mask=np.ones(50, bool))


def test_where_decode_does_not_apply() -> None:
    q, k, v = decode_inputs(n_q=DECODE_ROWS + 1)
    assert not applies(unchecked(q, k, v))
    assert not applies(unchecked(*decode_inputs(), is_causal=True))
    q, k, v = (RNG.standard_normal(shape) for shape in [(1, 4), (20, 4), (2, 20, 3)])
    assert not applies(unchecked(q, k, v, mask=np.ones((2, 1, 20), bool)))  # the mask has v's batch dim, the scores not


def put(array: np.ndarray, index: tuple, value: float) -> np.ndarray:
    array = array.copy()
    array[index] = value
    return array


BAD = [np.nan, np.inf, -np.inf]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("name", ["q", "k", "v"])
def test_nan_and_inf_are_refused(dtype, bad: float, name: str) -> None:
    inputs = dict(zip("qkv", decode_inputs(dtype=dtype), strict=True))
    inputs[name] = put(inputs[name], (0, 1, 0, 3), bad)
    assert decode_output(unchecked(**inputs)) is None
    with pytest.raises(ValueError, match=f"{name} contains NaN or inf"):
        attention_output(**inputs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("name", ["k", "v"])
def test_nan_and_inf_under_a_mask_are_refused(dtype, bad: float, name: str) -> None:
    """A masked key's score and weight are not used, but its NaN or inf is still an input's."""
    inputs = dict(zip("qkv", decode_inputs(dtype=dtype), strict=True))
    inputs[name] = put(inputs[name], (0, 1, 7, 3), bad)
    mask = np.ones(300, bool)
    mask[7] = False
    with pytest.raises(ValueError, match=f"{name} contains NaN or inf"):
        attention_output(**inputs, mask=mask)


@pytest.mark.parametrize("bad", BAD)
def test_inf_in_k_where_the_query_is_zero(bad: float) -> None:
    """The query's entry 3 is 0: no score need show k's NaN or inf there, so k is checked whole."""
    q, k, v = decode_inputs()
    q = put(q, (..., 3), 0.0)
    with pytest.raises(ValueError, match="k contains NaN or inf"):
        attention_output(q, put(k, (0, 1, 5, 3), bad), v)


@pytest.mark.parametrize("bad", BAD)
def test_inf_in_v_where_the_weight_underflows(bad: float) -> None:
    """Key 5's weight is exp(-1000) = 0: no output need show v's NaN or inf there, so v is checked whole."""
    q, k, v = decode_inputs(d=2)
    q[...] = [1.0, 0.0]
    k[...] = [1.0, 0.0]
    k[0, 1, 5] = [-1000.0 * np.sqrt(2), 0.0]
    with pytest.raises(ValueError, match="v contains NaN or inf"):
        attention_output(q, k, put(v, (0, 1, 5, 1), bad))


def overflowing_key_4():
    """float32 inputs whose score with key 4 alone overflows at scale 1: entry 0 is 1e20 in q and in key 4, 0 in the others."""
    q, k, v = decode_inputs()
    q[..., 0], k[..., 0] = 1e20, 0.0
    k[..., 4, 0] = 1e20
    return q, k, v


def test_overflowing_scores_are_refused() -> None:
    q, k, v = overflowing_key_4()
    for attention in (attention_output, plain_attention):
        with pytest.raises(ValueError, match="overflowed"):
            attention(q, k, v, scale=1.0)


def test_overflow_hidden_by_the_mask_is_computed() -> None:
    """Key 4's score overflows, but the mask hides it: computed from the other keys, as plain_attention does."""
    q, k, v = overflowing_key_4()
    mask = np.ones(300, bool)
    mask[4] = False
    expected = plain_attention(q, k, v, mask=mask, scale=1.0).output
    np.testing.assert_allclose(attention_output(q, k, v, mask=mask, scale=1.0), expected, rtol=2e-6, atol=2e-6)


def test_values_near_the_maximum() -> None:
    """v near float32's maximum: the sums overflow here, and the checked path (which shrinks v) computes it."""
    q, k, v = decode_inputs()
    v = np.full_like(v, np.finfo(np.float32).max * 0.9)
    assert decode_output(unchecked(q, k, v)) is None
    np.testing.assert_allclose(attention_output(q, k, v), v[..., :1, :], rtol=1e-6)


def test_grouped_query_decode_stacks_a_groups_queries_as_rows() -> None:
    q = RNG.standard_normal((2, 8, 3, 4))  # 8 query heads, 3 rows each
    k, v = RNG.standard_normal((2, 2, 60, 4)), RNG.standard_normal((2, 2, 60, 5))  # 2 K/V heads: groups of 4
    mask = RNG.random((2, 8, 3, 60)) < 0.5
    mask[..., 0] = True
    inputs = unchecked(q, k, v, mask=mask, enable_gqa=True)
    rows, mask_rows = _group_as_rows(inputs.q, inputs.mask)
    assert rows.shape == (2, 2, 1, 12, 4) and mask_rows is not None and mask_rows.shape == (2, 2, 1, 12, 60)
    np.testing.assert_array_equal(rows[1, 1, 0, 3:6], q[1, 5])  # group 1, its second head's rows
    np.testing.assert_array_equal(mask_rows[1, 1, 0, 3:6], mask[1, 5])
    expected = plain_attention(q, k, v, mask=mask, enable_gqa=True).output
    np.testing.assert_allclose(attention_output(q, k, v, mask=mask, enable_gqa=True), expected, rtol=0, atol=1e-13)
