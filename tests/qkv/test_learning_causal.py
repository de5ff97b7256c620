"""qkv.learning's causal tools: attention rollout and the ablation of an edge, on both tasks."""

from __future__ import annotations

import numpy as np
import pytest

from qkv.learning import ablate, rollout, rollout_batch, train_coreference, train_referent
from qkv.learning import referent_sentences as r
from qkv.learning import sentences as s
from qkv.learning.ablation import _control, _remove
from qkv.learning.rollout import rollout_weights

ARTICLE, TWIN = s.ARTICLE_SENTENCE, s.ARTICLE_TWIN


@pytest.fixture(scope="module")
def referent_model():
    return train_referent(seed=0, steps=120)


@pytest.fixture(scope="module")
def coreference_model():
    return train_coreference(seed=0, steps=60)


def test_rollout_rows_sum_to_one_and_stay_non_negative(referent_model, coreference_model) -> None:
    for model in (referent_model, coreference_model):
        for residual in (0.0, 0.5, 1.0):
            rolled = rollout(model, ARTICLE, residual=residual)
            assert rolled.shape == (2, 11, 11) and (rolled >= 0).all()
            np.testing.assert_allclose(rolled.sum(axis=-1), 1.0, rtol=1e-12)


def test_rollout_of_one_layer_without_the_residual_is_the_raw_attention() -> None:
    one = train_coreference(seed=0, n_layers=1, steps=30)
    np.testing.assert_allclose(rollout(one, ARTICLE, residual=0.0)[0], one.attention(ARTICLE)[0], rtol=1e-15)


def test_rollout_is_the_product_of_the_residual_mixed_layers(referent_model) -> None:
    a = referent_model.attention(TWIN)
    eye = np.eye(11)
    expected = (0.5 * a[1] + 0.5 * eye) @ (0.5 * a[0] + 0.5 * eye)
    np.testing.assert_allclose(rollout(referent_model, TWIN)[-1], expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(rollout(referent_model, TWIN, residual=0.0)[-1], a[1] @ a[0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(rollout(referent_model, TWIN, residual=1.0)[-1], eye, rtol=0, atol=1e-15)


def test_rollout_of_a_batch_matches_each_sentence(referent_model) -> None:
    batch = r.batch([ARTICLE, "yesterday the dog didn't carry the box across the river because it was too heavy"])
    rolled = rollout_batch(referent_model, batch)
    np.testing.assert_allclose(rolled[:, 0, :11, :11], rollout(referent_model, ARTICLE), rtol=1e-12, atol=1e-15)
    assert (rolled[:, 0, :11, 11:] == 0).all(), "padding flows into no real word (exact: its weights are exactly 0)"


@pytest.mark.parametrize("residual", [-0.1, 1.5, float("nan")])
def test_a_residual_outside_zero_to_one_is_named(referent_model, residual: float) -> None:
    with pytest.raises(ValueError, match="residual must be in"):
        rollout(referent_model, ARTICLE, residual=residual)
    with pytest.raises(TypeError, match="residual must be a real number"):
        rollout_weights(np.ones((1, 2, 2)) / 2, residual="half")


def test_removing_a_zero_weight_edge_changes_nothing() -> None:
    weights = np.array([[[0.2, 0.0, 0.8], [0.5, 0.5, 0.0], [0.1, 0.6, 0.3]]])  # (1, 3, 3)
    edited = _remove(weights, np.array([1]), np.array([2]))
    np.testing.assert_allclose(edited, weights, rtol=1e-15, atol=0)
    edited = _remove(weights, np.array([2]), np.array([1]))  # removing 0.6: the rest of the row scaled by 1/0.4
    np.testing.assert_allclose(edited[0, 2], [0.25, 0.0, 0.75], rtol=1e-15)
    np.testing.assert_allclose(edited[0, :2], weights[0, :2], rtol=1e-15, atol=0)


def test_ablating_an_edge_the_model_does_not_use_keeps_every_answer(coreference_model) -> None:
    """Through the model's own forward pass: removing a weight that is exactly 0 (a padding key) changes nothing."""
    batch = s.batch(["the cat didn't cross the square because it was wide", ARTICLE], [s.PLACE, s.ANIMAL])
    assert not batch.mask[0, 10], "the first sentence is padded at position 10"
    intact = coreference_model.forward(batch)
    edited = coreference_model.forward(  # "it" → position 10 (padding) in the first sentence, in both layers
        batch, edit=lambda layer, w: np.concatenate([_remove(w[:1], batch.it[:1], np.array([10])), w[1:]]))
    for before, after in zip(intact.layers, edited.layers, strict=True):
        assert before.weights[0, 7, 10] == 0.0  # exact by construction: a padding key's score is -inf, exp(-inf) = 0
        np.testing.assert_allclose(after.weights, before.weights, rtol=1e-12, atol=1e-18)  # the row re-divided by its sum, 1 to rounding
    np.testing.assert_allclose(edited.probabilities, intact.probabilities, rtol=1e-12)


def test_the_identity_edit_is_the_forward_pass_itself(coreference_model) -> None:
    batch = s.batch([ARTICLE, TWIN], [s.ANIMAL, s.PLACE])
    same = coreference_model.forward(batch, edit=lambda layer, w: w)
    np.testing.assert_allclose(same.probabilities, coreference_model.forward(batch).probabilities, rtol=1e-15, atol=0)


def test_ablation_counts_and_the_control_is_never_the_referent(referent_model) -> None:
    batch = r.corpus(heldout=True).sentences.subset(np.arange(90))
    result = ablate(referent_model, batch)
    assert result.layers == (1, 2) and result.total == 90
    assert result.intact == int(referent_model.correct(batch).sum())
    assert 0 <= result.referent_removed <= 90 and 0 <= result.control_removed <= 90
    weights = referent_model.attention_batch(batch)[0]
    control = _control(weights, batch, referent_model.referents(batch))
    assert (control != referent_model.referents(batch)).all() and (control != batch.it).all()
    assert batch.mask[np.arange(90), control].all(), "the control is a real word, never padding"


def test_ablating_the_referent_in_the_coreference_model_uses_the_labels(coreference_model) -> None:
    batch = s.batch([ARTICLE, TWIN], [s.ANIMAL, s.PLACE])
    assert coreference_model.referents(batch).tolist() == [1, 5]
    one_layer = ablate(coreference_model, batch, layers=(2,))
    assert one_layer.layers == (2,) and one_layer.total == 2


@pytest.mark.parametrize(
    ("layers", "error", "message"),
    [((3,), ValueError, "layers must count from 1 to 2"), ((0,), ValueError, "layers must count from 1 to 2"),
     (2, TypeError, "layers must be a non-empty tuple of ints"), ((), TypeError, "non-empty tuple")],
)
def test_bad_ablation_layers_are_named(coreference_model, layers, error, message) -> None:
    with pytest.raises(error, match=message):
        ablate(coreference_model, s.batch([ARTICLE], [s.ANIMAL]), layers=layers)
