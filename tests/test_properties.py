"""Properties that must hold for every input: softmax invariances, permutation equivariance, causality."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from qkv import causal_mask, scaled_dot_product_attention, self_attention, softmax

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
