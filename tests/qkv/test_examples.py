"""The article's worked example, recomputed, and the illustrative setups showing the patterns they claim."""

from __future__ import annotations

import numpy as np
import pytest

from qkv.analysis import asymmetry
from qkv.examples import (
    IllustrativeSelfAttention,
    WorkedExample,
    cat_sat_on_mat,
    it_animal_sentence,
    query_equals_key_example,
    translation_example,
    worked_example,
)


@pytest.fixture
def ex() -> WorkedExample:
    return worked_example()


def test_inputs_are_the_articles(ex: WorkedExample) -> None:
    assert ex.tokens == ("I", "love")
    assert np.array_equal(ex.x, [[1, 0, 1, 0], [0, 1, 0, 1]])
    assert np.array_equal(ex.w_q, [[1, 0, 1], [0, 1, 0], [1, 0, 0], [0, 1, 1]])
    assert ex.d_k == 3


def test_our_w_k_and_w_v_are_small_integers(ex: WorkedExample) -> None:
    for w in (ex.w_k, ex.w_v):
        assert w.shape == (4, 3) and np.issubdtype(w.dtype, np.integer)
        assert np.abs(w).max() <= 1


def test_q_k_v_exactly(ex: WorkedExample) -> None:
    assert np.array_equal(ex.q, [[2, 0, 1], [0, 2, 1]])
    assert np.array_equal(ex.k, [[1, 1, 0], [0, 1, 1]])
    assert np.array_equal(ex.v, [[1, 0, 1], [0, 1, 0]])


def test_scores_exactly(ex: WorkedExample) -> None:
    assert np.array_equal(ex.scores, [[2, 1], [2, 3]])
    # the article's dot product spelled out: [2,0,1]·[1,1,0] = 2
    assert float(ex.q[0] @ ex.k[0]) == 2.0


def test_scaled_scores(ex: WorkedExample) -> None:
    np.testing.assert_allclose(ex.scaled_scores, np.array([[2, 1], [2, 3]]) / np.sqrt(3), rtol=1e-15)
    np.testing.assert_allclose(ex.scaled_scores, [[1.15, 0.58], [1.15, 1.73]], atol=0.005)


def test_weights_and_output_match_the_article(ex: WorkedExample) -> None:
    np.testing.assert_allclose(ex.weights, [[0.64, 0.36], [0.36, 0.64]], atol=0.005)
    np.testing.assert_allclose(ex.output, [[0.64, 0.36, 0.64], [0.36, 0.64, 0.36]], atol=0.005)
    np.testing.assert_allclose(ex.weights.sum(axis=1), 1.0)
    # "I" = 64% of itself + 36% of "love": the output row is that mix of the value rows
    np.testing.assert_allclose(ex.output[0], ex.weights[0, 0] * ex.v[0] + ex.weights[0, 1] * ex.v[1])


def test_the_articles_softmax_arithmetic(ex: WorkedExample) -> None:
    # e^1.15 ≈ 3.16, e^0.58 ≈ 1.79, sum ≈ 4.95 (the article rounds the scores first)
    exps = np.exp(ex.scaled_scores[0])
    np.testing.assert_allclose(exps, [3.16, 1.79], atol=0.02)
    np.testing.assert_allclose(exps.sum(), 4.95, atol=0.03)


def test_dtypes(ex: WorkedExample) -> None:
    for array in (ex.q, ex.k, ex.v, ex.scores, ex.scaled_scores, ex.weights, ex.output):
        assert array.dtype == np.float64
    ex32 = worked_example(x=np.array(ex.x, np.float32), w_q=np.array(ex.w_q, np.float32),
                          w_k=np.array(ex.w_k, np.float32), w_v=np.array(ex.w_v, np.float32))
    assert ex32.weights.dtype == np.float32 and ex32.output.dtype == np.float32
    np.testing.assert_allclose(ex32.output, ex.output, atol=1e-6)


def test_overrides_recompute_every_step(ex: WorkedExample) -> None:
    changed = worked_example(w_q=2 * ex.w_q)
    assert np.array_equal(changed.scores, 2 * ex.scores)
    assert changed.weights[1, 1] > ex.weights[1, 1]  # sharper: larger scores, more decisive softmax
    three = worked_example(x=[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], tokens=("a", "b", "c"))
    assert three.weights.shape == (3, 3)


def test_examples_are_frozen(ex: WorkedExample) -> None:
    with pytest.raises(AttributeError):
        ex.x = None  # type: ignore[misc]
    with pytest.raises(ValueError):
        ex.w_q[0, 0] = 5


# ---- illustrative setups ---------------------------------------------------------------------------


def test_cat_sat_on_mat_is_asymmetric() -> None:
    ex = cat_sat_on_mat()
    assert ex.tokens == ("猫", "坐在", "垫子", "上")
    assert ex.glosses == ("cat", "sits on", "mat", "on")
    assert ex.x.shape[1] <= 6
    assert not np.array_equal(ex.w_q, ex.w_k)
    sits = ex.weights_of("坐在")
    assert max(sits, key=sits.get) == "猫" and sits["猫"] >= 0.4
    cat = ex.weights_of("猫")
    assert sits["猫"] > 3 * cat["坐在"]  # 坐在→猫 much stronger than 猫→坐在
    assert asymmetry(ex.weights) > 0.5


def test_cat_sat_on_mat_becomes_symmetric_scores_with_w_q_equal_w_k() -> None:
    ex = cat_sat_on_mat()
    same = IllustrativeSelfAttention(ex.tokens, ex.features, ex.x, ex.w_k, ex.w_k, ex.w_v, ex.glosses)
    scores = (same.x @ same.w_k) @ (same.x @ same.w_k).T
    assert np.array_equal(scores, scores.T)
    sits = same.weights_of("坐在")
    assert max(sits, key=sits.get) != "猫"  # with W_Q = W_K the verb can no longer find its subject


def test_translation_encoder_love_looks_at_i_and_cats() -> None:
    ex = translation_example()
    assert ex.source_tokens == ("I", "love", "cats") and ex.target_tokens == ("我", "爱", "猫")
    love = ex.encoder.weights_of("love")
    assert love["I"] > love["love"] and love["cats"] > love["love"]


def test_translation_cross_attention_aligns_words() -> None:
    ex = translation_example()
    weights = ex.cross.weights  # (target, source)
    assert weights.shape == (3, 3)
    assert np.array_equal(weights.argmax(axis=1), [0, 1, 2])  # 我→I, 爱→love, 猫→cats
    assert np.all(np.diag(weights) >= 0.5)
    assert ex.cross.weights_of("猫")["cats"] == weights[2, 2]
    # queries from the target, keys/values from the source: different sequences
    assert ex.cross.x_q.tolist() != ex.cross.x_kv.tolist()


def test_it_refers_to_the_animal() -> None:
    ex = it_animal_sentence()
    assert ex.tokens[:3] == ("The", "animal", "didn't")
    assert "it" in ex.tokens and "street" in ex.tokens
    row = ex.weights_of("it")
    assert max(row, key=row.get) == "animal"
    assert row["animal"] > 5 * row["street"]
    assert ex.output.shape == (len(ex.tokens), 6)


@pytest.mark.parametrize("make", [cat_sat_on_mat, it_animal_sentence])
def test_illustrations_are_small_and_labelled(make) -> None:
    ex = make()
    assert ex.x.shape[1] <= 6 and len(ex.features) == ex.x.shape[1]
    assert "illustrative" in (make.__doc__ or "").lower()
    np.testing.assert_allclose(ex.weights.sum(axis=1), 1.0)


def test_translation_is_labelled_illustrative() -> None:
    assert "illustrative" in (translation_example.__doc__ or "").lower()
    assert "not a trained model" in (IllustrativeSelfAttention.__doc__ or "")


def test_softmax_walkthrough_reproduces_the_articles_hand_calculation(ex: WorkedExample) -> None:
    walk = ex.softmax_walkthrough(row=0)
    assert walk.scores.tolist() == [1.15, 0.58]
    assert walk.exps.tolist() == [3.16, 1.79]
    assert walk.total == 4.95
    assert walk.weights.tolist() == [0.64, 0.36]
    second = ex.softmax_walkthrough(row=1)
    assert second.scores.tolist() == [1.15, 1.73] and second.weights.tolist() == [0.36, 0.64]
    np.testing.assert_allclose(second.weights, ex.weights[1], atol=0.005)


def test_query_equals_key_gives_symmetric_scores_and_asymmetric_weights() -> None:
    example = query_equals_key_example()
    assert np.array_equal(example.w_q, example.w_k)
    assert np.array_equal(example.scores, example.scores.T)
    assert not np.allclose(example.weights, example.weights.T)
    np.testing.assert_allclose(example.weights.sum(axis=-1), 1.0)
    # The two-token example alone would not show it: with Q = K its weights stay symmetric.
    two = worked_example(w_q=worked_example().w_k)
    assert np.allclose(two.weights, two.weights.T)
