"""qkv.learning: the sentences and their split, the API's shapes and errors, determinism, what training reaches."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from qkv.learning import EXPERIMENTS, referent_attention, train_coreference
from qkv.learning import sentences as s
from qkv.learning.network import forward, init_parameters
from qkv.learning.training import _train, make_options

ARTICLE, TWIN = s.ARTICLE_SENTENCE, s.ARTICLE_TWIN
# Measured: seeds 0-4 all reach a held-out accuracy of 1.0 (seed 4 dips to 0.71 at step 90, then recovers).
HELDOUT_THRESHOLD = 0.95


@pytest.fixture(scope="module")
def model():
    return train_coreference(seed=0)


@pytest.fixture(scope="module")
def one_layer():
    return train_coreference(seed=0, n_layers=1)


def test_heldout_sentences_are_never_seen_together_in_training() -> None:
    train, heldout = s.corpus(heldout=False), s.corpus(heldout=True)
    assert set(train.text).isdisjoint(heldout.text)
    assert len(train) + len(heldout) == len(s.FRAMES) * len(s.ANIMALS) * len(s.PLACES) * 12

    def triples(batch: s.Sentences) -> set[tuple[str, ...]]:
        found = set()
        for text in batch.text:
            words = text.split()
            adjective = next(w for w in words if w in s.ANIMAL_ADJECTIVES + s.PLACE_ADJECTIVES)
            found.add((next(w for w in words if w in s.ANIMALS), next(w for w in words if w in s.PLACES), adjective))
        return found

    assert triples(train).isdisjoint(triples(heldout))
    for sentence in (ARTICLE, TWIN):
        assert " ".join(s.tokens(sentence)) in heldout.text


def test_frames_move_the_candidates_so_position_alone_cannot_answer() -> None:
    batch = s.corpus(heldout=False)
    for label in (s.ANIMAL, s.PLACE):
        rows = batch.labels == label
        referent = batch.candidates[rows, label]
        assert len(set(referent.tolist())) >= 3, "the referent sits at several positions"
        assert len(set(batch.it[rows].tolist())) == 2
    # In a pair of frames the animal and the place swap places around an "it" at the same position.
    first, second = (s.encode(frame.format(animal="dog", place="road", adjective="tired")) for frame in s.FRAMES[:2])
    assert first.it == second.it and first.candidates == second.candidates[::-1]


def test_api_shapes(model) -> None:
    words = model.tokens(ARTICLE)
    assert words == ["the", "animal", "didn't", "cross", "the", "street", "because", "it", "was", "too", "tired"]
    weights = model.attention(ARTICLE)
    assert weights.shape == (2, len(words), len(words))
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-12)
    p = model.probabilities(ARTICLE)
    assert set(p) == {"animal", "street"} and math.isclose(sum(p.values()), 1.0)
    history = model.history
    steps = model.options.steps
    assert history.loss.shape == history.batch_accuracy.shape == (steps,)
    for name in ("entropy", "score_gradient_norm", "jacobian_norm"):
        assert getattr(history, name).shape == (steps, 2), name
    assert history.eval_steps[0] == 0 and history.eval_steps[-1] == steps
    assert history.heldout_accuracy.shape == history.heldout_loss.shape == history.eval_steps.shape
    assert history.snapshot_steps.tolist() == [0, 15, 60, 150, 300]
    assert history.article_attention.shape == history.twin_attention.shape == (5, 2, 11, 11)
    # The last snapshot is the trained model's own attention.
    np.testing.assert_array_equal(history.article_attention[-1], model.attention(ARTICLE))
    np.testing.assert_array_equal(history.twin_attention[-1], model.attention(TWIN))
    assert model.heldout_accuracy == history.heldout_accuracy[-1]


def test_first_snapshot_is_the_untrained_model_and_the_loss_goes_down(model) -> None:
    params = init_parameters(np.random.default_rng(0), d_model=24, d_k=24, n_layers=2, projections="separate")
    untrained = forward(params, s.batch([ARTICLE, TWIN]), n_layers=2, projections="separate", scale=1 / math.sqrt(24))
    np.testing.assert_array_equal(model.history.article_attention[0], np.stack([a.weights[0] for a in untrained.layers]))
    np.testing.assert_array_equal(model.history.twin_attention[0], np.stack([a.weights[1] for a in untrained.layers]))
    loss = model.history.loss
    assert loss[-30:].mean() < 0.1 * loss[:30].mean()  # measured: 0.72 at the start, 1e-4 at the end
    assert model.history.heldout_accuracy[0] < 0.6 < model.history.heldout_accuracy[-1]


def test_results_are_plain_read_only_numpy(model) -> None:
    for name, value in vars(model.history).items():
        assert isinstance(value, np.ndarray) and not value.flags.writeable, name
    for name, value in model.parameters.items():
        assert value.dtype == np.float64 and not value.flags.writeable, name
    with pytest.raises(ValueError, match="read-only"):
        model.parameters["embedding"][0, 0] = 1.0


def test_training_is_deterministic(model) -> None:
    again = _train.__wrapped__(make_options(0))  # a second, uncached run
    assert again is not model
    for name, value in model.parameters.items():
        assert value.tobytes() == again.parameters[name].tobytes(), name
    for name, value in vars(model.history).items():
        assert value.tobytes() == getattr(again.history, name).tobytes(), name


def test_a_second_call_returns_the_cached_model(model) -> None:
    assert train_coreference(0) is model
    assert train_coreference(seed=0, d_model=24, projections="separate") is model


def test_heldout_accuracy_above_threshold(model) -> None:
    assert model.heldout_accuracy >= HELDOUT_THRESHOLD
    assert model.resolve(ARTICLE) == "animal"
    assert model.resolve(TWIN) == "street"


def test_one_layer_attention_ratio_does_not_depend_on_the_adjective(model, one_layer) -> None:
    """In layer 1 the query at "it" cannot see the adjective: its weights on the two nouns keep their ratio."""
    it, animal, street = 7, 1, 5
    for m in (model, one_layer):
        tired, wide = m.attention(ARTICLE)[0, it], m.attention(TWIN)[0, it]
        assert tired[animal] / tired[street] == pytest.approx(wide[animal] / wide[street], rel=1e-9)
        assert not np.allclose(tired, wide), "the adjective's own weight does change"


def test_one_layer_gets_at_most_three_of_each_four_sentences(one_layer) -> None:
    """The package docstring's bound: for one animal, place and pair of adjectives, a frame pair has 4 sentences."""
    correct = {}
    for heldout in (False, True):  # every sentence there is, in training or not
        batch = s.corpus(heldout=heldout)
        o = one_layer.options
        fwd = forward(one_layer.parameters, batch, n_layers=1, projections=o.projections, scale=o.scale)
        correct.update(zip(batch.text, fwd.probabilities.argmax(axis=1) == batch.labels, strict=True))
    assert len(correct) == 3072
    quadruples = 0
    for (f1, f2), a, p, ja, jp in itertools.product((s.FRAMES[:2], s.FRAMES[2:]), s.ANIMALS, s.PLACES,
                                                    s.ANIMAL_ADJECTIVES, s.PLACE_ADJECTIVES):
        four = [frame.format(animal=a, place=p, adjective=j) for frame in (f1, f2) for j in (ja, jp)]
        assert sum(correct[x] for x in four) <= 3, four
        quadruples += 1
    assert quadruples == 2 * 8 * 8 * 6 * 6
    assert one_layer.heldout_accuracy <= 0.75


def test_referent_attention_reads_the_it_row(model) -> None:
    batch = s.batch([ARTICLE, TWIN], [s.ANIMAL, s.PLACE])
    measured = referent_attention(model, batch)
    tired, wide = model.attention(ARTICLE), model.attention(TWIN)
    np.testing.assert_allclose(measured.to_referent, (tired[:, 7, 1] + wide[:, 7, 5]) / 2, rtol=1e-12)
    np.testing.assert_allclose(measured.to_other, (tired[:, 7, 5] + wide[:, 7, 1]) / 2, rtol=1e-12)


def test_experiments_are_options_of_train_coreference() -> None:
    for name, options in EXPERIMENTS.items():
        make_options(0, **options)  # raises on an option that does not exist or does not fit
        assert name
    assert make_options(0, **EXPERIMENTS["scale 1/d_k"]).scale == 1 / 64
    assert make_options(0, **EXPERIMENTS["scale 1/√d_k"]).scale == 1 / 8


def test_tied_projections_make_symmetric_scores_but_not_symmetric_weights() -> None:
    tied = train_coreference(seed=0, projections="tied")
    assert "w_k1" not in tied.parameters and "w_qk1" in tied.parameters
    o = tied.options
    fwd = forward(tied.parameters, s.batch([ARTICLE]), n_layers=o.n_layers, projections=o.projections, scale=o.scale)
    for layer in fwd.layers:
        scores = layer.q[0] @ layer.k[0].T
        np.testing.assert_array_equal(layer.q, layer.k)
        np.testing.assert_allclose(scores, scores.T, rtol=1e-12, atol=1e-12)
        assert not np.allclose(layer.weights[0], layer.weights[0].T), "each row is normalised on its own"


@pytest.mark.parametrize(
    ("sentence", "error", "message"),
    [
        ("The animal didn't cross the street because it was too purple", ValueError, "unknown word 'purple'"),
        ("The animal didn't cross the street because she was too tired", ValueError, "unknown word 'she'"),
        ("The animal didn't cross the street", ValueError, "has no 'it'"),
        ("it was too tired because it was too wide the dog", ValueError, "2 words 'it'"),
        ("the dog didn't cross the cat because it was too tired", ValueError, "exactly one animal"),
        ("because it was too wide the road didn't tempt the street", ValueError, "exactly one animal"),
        ("the dog didn't cross the road because it was too tired too tired", ValueError, "has 13 words"),
        ("", ValueError, "sentence is empty"),
        ("<pad> it", ValueError, "unknown word '<pad>'"),
        (["the", "dog"], TypeError, "sentence must be a str"),
    ],
)
def test_bad_sentences_are_named(model, sentence, error, message) -> None:
    for method in (model.resolve, model.attention):
        with pytest.raises(error, match=message):
            method(sentence)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"seed": -1}, ValueError, "seed must be a non-negative int"),
        ({"seed": 1.5}, TypeError, "seed must be a non-negative int"),
        ({"d_model": 0}, ValueError, "d_model must be a positive int"),
        ({"d_k": True}, TypeError, "d_k must be a positive int"),
        ({"n_layers": "2"}, TypeError, "n_layers must be a positive int"),
        ({"projections": "shared"}, ValueError, "projections must be one of"),
        ({"projections": None}, TypeError, "projections must be a str"),
        ({"projections": "none", "d_k": 8}, ValueError, 'projections="none" uses Q = K = X'),
        ({"scale": 0.0}, ValueError, "scale must be finite and > 0"),
        ({"scale": "1"}, TypeError, "scale must be a real number"),
        ({"steps": 0}, ValueError, "steps must be a positive int"),
        ({"batch_size": 2.0}, TypeError, "batch_size must be a positive int"),
        ({"learning_rate": math.inf}, ValueError, "learning_rate must be finite and > 0"),
        ({"lr": 0.1}, TypeError, "unexpected keyword argument 'lr'"),
    ],
)
def test_bad_options_are_named(options, error, message) -> None:
    with pytest.raises(error, match=message):
        train_coreference(**options)


def test_the_cached_model_shares_no_mutable_state_with_later_callers(model) -> None:
    with pytest.raises(TypeError):
        model.parameters["embedding"] = np.zeros(1)  # type: ignore[index]
    with pytest.raises(TypeError):
        del model.parameters["embedding"]  # type: ignore[attr-defined]
    assert _train(make_options(0)).parameters["embedding"] is model.parameters["embedding"]  # the same frozen arrays
