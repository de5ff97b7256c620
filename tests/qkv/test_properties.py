"""Properties that must hold for every input: softmax invariances, permutation equivariance, causality."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from qkv import (
    attention_output,
    causal_mask,
    plain_attention,
    scaled_dot_product_attention,
    self_attention,
    softmax,
    tiled_attention,
)

MAX_EXAMPLES = 200
# database=None: no .hypothesis/ directory in the working tree.
SETTINGS = settings(max_examples=MAX_EXAMPLES, deadline=None, database=None)

sizes = st.integers(1, 6)


def floats(bound: float) -> st.SearchStrategy[float]:
    return st.floats(-bound, bound, allow_nan=False, allow_infinity=False)


def matrices(rows: int, cols: int, bound: float = 3.0) -> st.SearchStrategy[np.ndarray]:
    return arrays(np.float64, (rows, cols), elements=floats(bound))


@st.composite
def self_attention_inputs(draw: st.DrawFn) -> tuple[np.ndarray, ...]:
    n, d_model, d_k, d_v = draw(sizes), draw(sizes), draw(sizes), draw(sizes)
    x = draw(matrices(n, d_model))
    w_q, w_k, w_v = draw(matrices(d_model, d_k)), draw(matrices(d_model, d_k)), draw(matrices(d_model, d_v))
    return x, w_q, w_k, w_v


@SETTINGS
@given(x=arrays(np.float64, st.tuples(sizes, sizes), elements=floats(100)), data=st.data())
def test_softmax_ignores_a_constant_added_to_each_row(x: np.ndarray, data: st.DataObject) -> None:
    shift = data.draw(arrays(np.float64, (x.shape[0], 1), elements=floats(100)))
    np.testing.assert_allclose(softmax(x + shift), softmax(x), rtol=1e-9, atol=1e-12)


@SETTINGS
@given(x=arrays(np.float64, st.tuples(sizes, sizes), elements=floats(1e4)))
def test_softmax_rows_are_distributions_even_for_huge_logits(x: np.ndarray) -> None:
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        weights = softmax(x)
    assert np.all((weights >= 0) & (weights <= 1))
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-12)
    # The largest logit always gets the largest weight.
    assert np.all(weights[np.arange(len(x)), x.argmax(axis=-1)] == weights.max(axis=-1))


@SETTINGS
@given(inputs=self_attention_inputs(), data=st.data())
def test_self_attention_is_permutation_equivariant(inputs: tuple[np.ndarray, ...], data: st.DataObject) -> None:
    x, w_q, w_k, w_v = inputs
    order = np.array(data.draw(st.permutations(range(len(x)))))
    output, weights = self_attention(x, w_q, w_k, w_v)
    permuted_output, permuted_weights = self_attention(x[order], w_q, w_k, w_v)
    # Without positions, attention only sees a set of tokens: shuffling them shuffles the result.
    np.testing.assert_allclose(permuted_output, output[order], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(permuted_weights, weights[order][:, order], rtol=1e-9, atol=1e-12)


@SETTINGS
@given(inputs=self_attention_inputs(), data=st.data())
def test_causal_output_ignores_later_tokens(inputs: tuple[np.ndarray, ...], data: st.DataObject) -> None:
    x, w_q, w_k, w_v = inputs
    n = len(x)
    i = data.draw(st.integers(0, n - 1))
    changed = x.copy()
    changed[i + 1 :] = data.draw(matrices(n - i - 1, x.shape[1]))
    output, weights = self_attention(x, w_q, w_k, w_v, mask=causal_mask(n))
    changed_output, _ = self_attention(changed, w_q, w_k, w_v, mask=causal_mask(n))
    np.testing.assert_allclose(changed_output[: i + 1], output[: i + 1], rtol=1e-12, atol=1e-12)
    assert np.all(np.triu(weights, 1) == 0.0)


@st.composite
def attention_inputs(draw: st.DrawFn) -> dict:
    batch = draw(st.lists(st.integers(1, 3), max_size=2).map(tuple))
    n_q, n_k, d_k, d_v = draw(sizes), draw(sizes), draw(sizes), draw(sizes)
    mask = draw(arrays(np.bool_, batch + (n_q, n_k)))
    mask[..., draw(st.integers(0, n_k - 1))] = True  # keep at least one key per query row
    return {
        "q": draw(arrays(np.float64, batch + (n_q, d_k), elements=floats(3))),
        "k": draw(arrays(np.float64, (n_k, d_k), elements=floats(3))),
        "v": draw(arrays(np.float64, (n_k, d_v), elements=floats(3))),
        "mask": mask,
    }


@SETTINGS
@given(inputs=attention_inputs())
def test_weights_are_distributions_over_allowed_keys(inputs: dict) -> None:
    output, weights = scaled_dot_product_attention(**inputs)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-12)
    assert np.all(weights[~inputs["mask"]] == 0.0)
    assert np.all(weights >= 0)


@SETTINGS
@given(inputs=attention_inputs())
def test_output_is_a_convex_combination_of_values(inputs: dict) -> None:
    output, _ = scaled_dot_product_attention(**inputs)
    v = inputs["v"]
    assert np.all(output >= v.min(axis=0) - 1e-12)
    assert np.all(output <= v.max(axis=0) + 1e-12)


# Key counts around the block sizes: 256 and 512 (the key blocks of attention_output), 1,024 (tiled_attention's
# default), and a key axis of 1.
KEY_COUNTS = [1, 2, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025]


def broadcastable_to(full: tuple[int, ...]) -> st.SearchStrategy[tuple[int, ...]]:
    """Every shape that broadcasts to `full` without adding dims: some leading dims dropped, any other size made 1."""
    return st.integers(0, len(full)).flatmap(
        lambda dropped: st.tuples(*(st.sampled_from(sorted({size, 1})) for size in full[dropped:])))


@st.composite
def masked_attention_calls(draw: st.DrawFn) -> tuple[dict, np.dtype]:
    """q, k, v and a mask of any shape that broadcasts to the scores', every query row keeping a key."""
    batch = draw(st.lists(st.integers(1, 3), max_size=2).map(tuple))
    n_q, n_k = draw(st.sampled_from([0, 1, 3, 8])), draw(st.sampled_from(KEY_COUNTS))
    d_k, d_v = draw(st.sampled_from([1, 4, 8])), draw(st.sampled_from([1, 3]))
    dtype = np.dtype(draw(st.sampled_from([np.float16, np.float32, np.float64])))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    # q six times as large pushes the score bound past 30: attention_output's row-maximum path instead of its key blocks.
    q_factor = draw(st.sampled_from([1.0, 6.0]))
    q = rng.standard_normal(draw(broadcastable_to(batch)) + (n_q, d_k)) * q_factor
    k = rng.standard_normal(draw(broadcastable_to(batch)) + (n_k, d_k))
    v = rng.standard_normal(draw(broadcastable_to(batch)) + (n_k, d_v))
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])  # a mask may not add batch dims of its own
    mask = rng.random(draw(broadcastable_to(batch + (n_q, n_k)))) < draw(st.sampled_from([0.05, 0.5, 1.0]))
    if mask.ndim:  # every row keeps one key (a 0-d mask is True or False for all of them)
        mask[..., rng.integers(mask.shape[-1])] = True
    else:
        mask = np.array(True)
    return {"q": q.astype(dtype), "k": k.astype(dtype), "v": v.astype(dtype), "mask": mask}, dtype


@settings(max_examples=300, deadline=None, database=None)
@given(call=masked_attention_calls())
def test_every_broadcastable_mask_gives_the_four_attention_functions_the_same_output(call: tuple[dict, np.dtype]) -> None:
    inputs, dtype = call
    plain = plain_attention(**inputs)
    fast = scaled_dot_product_attention(**inputs)
    outputs = {"scaled_dot_product_attention": fast.output, "attention_output": attention_output(**inputs),
               "tiled_attention": tiled_attention(**inputs)}
    # Each output is a weighted mean of the rows of v, so its rounding scales with |v|, and its sums' with log2 of the
    # keys summed (the worst seen over 1,500 examples: 5 eps·max|v|). float16 is computed in float32, and two float32
    # results a few float32 steps apart may round to neighbouring float16 numbers: one float16 step more.
    n_k = inputs["k"].shape[-2]
    work_eps = float(np.finfo(np.promote_types(dtype, np.float32)).eps)
    rounding = 8 * work_eps * (1 + np.log2(n_k)) + (float(np.finfo(dtype).eps) if dtype == np.float16 else 0.0)
    largest_v = float(np.abs(inputs["v"].astype(np.float64)).max(initial=0.0))
    for name, output in outputs.items():
        assert output.shape == plain.output.shape and output.dtype == dtype, name
        np.testing.assert_allclose(output.astype(np.float64), plain.output.astype(np.float64), rtol=0,
                                   atol=rounding * largest_v, err_msg=name)
    # The weights lie in [0, 1]: the same rounding, without |v|.
    np.testing.assert_allclose(fast.weights.astype(np.float64), plain.weights.astype(np.float64), rtol=0, atol=rounding)
