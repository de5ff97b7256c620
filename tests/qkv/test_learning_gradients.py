"""qkv.learning's hand-written backward pass: every gradient against torch.autograd and finite differences."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qkv.learning import sentences as s
from qkv.learning.network import PROJECTIONS, Parameters, backward, forward, init_parameters

# Sentences of different lengths (so the batch has padding) from every frame, with both answers.
SENTENCES = [
    "the dog didn't cross the road because it was too tired",
    "the river didn't tempt the cow because it was too icy",
    "because it was too hungry the fox didn't cross the bridge",
    "because it was too steep the field didn't tempt the goat",
    "the cat didn't cross the square because it was wide",  # 10 words: one padding position
    "it was too busy the sheep didn't cross the yard",  # 10 words, "it" first
]
LABELS = [s.ANIMAL, s.PLACE, s.ANIMAL, s.PLACE, s.PLACE, s.PLACE]


def torch_loss(torch, params: dict, batch: s.Sentences, *, n_layers: int, projections: str, scale: float):
    """The same model in torch, written independently of qkv.learning.network; returns (loss, scores per layer)."""
    ids = torch.from_numpy(batch.ids)
    n = ids.shape[1]
    x = params["embedding"][ids] + params["position"][:n]
    keep = torch.from_numpy(batch.mask)[:, None, :]
    h, all_scores = x, []
    for layer in range(1, n_layers + 1):
        if projections == "none":
            q = k = v = h
        else:
            w_q = params[f"w_qk{layer}"] if projections == "tied" else params[f"w_q{layer}"]
            w_k = params[f"w_qk{layer}"] if projections == "tied" else params[f"w_k{layer}"]
            q, k, v = h @ w_q, h @ w_k, h @ params[f"w_v{layer}"]
        scores = (q @ k.transpose(-1, -2) * scale).masked_fill(~keep, float("-inf"))
        scores.retain_grad()
        all_scores.append(scores)
        h = h + torch.softmax(scores, dim=-1) @ v
    rows = torch.arange(len(batch))
    out = h[rows, torch.from_numpy(batch.it)]
    targets = params["position"][torch.from_numpy(batch.candidates)]
    logits = torch.einsum("bd,bcd->bc", out, targets) / math.sqrt(x.shape[-1])
    loss = torch.nn.functional.cross_entropy(logits, torch.from_numpy(batch.labels))
    return loss, all_scores


def random_parameters(seed: int, *, d_model: int, d_k: int, n_layers: int, projections: str) -> Parameters:
    rng = np.random.default_rng(seed)
    return init_parameters(rng, d_model=d_model, d_k=d_k, n_layers=n_layers, projections=projections)


@pytest.mark.parametrize("projections", PROJECTIONS)
@pytest.mark.parametrize("n_layers", [1, 2])
@pytest.mark.parametrize("scale", [None, 1.0])
def test_every_gradient_matches_torch_autograd(torch, projections: str, n_layers: int, scale: float | None) -> None:
    d_model = 6
    d_k = d_model if projections == "none" else 5
    scale = 1.0 / math.sqrt(d_k) if scale is None else scale
    params = random_parameters(n_layers, d_model=d_model, d_k=d_k, n_layers=n_layers, projections=projections)
    batch = s.batch(SENTENCES, LABELS)
    assert not batch.mask.all(), "the batch must exercise padding"

    fwd = forward(params, batch, n_layers=n_layers, projections=projections, scale=scale)
    ours = backward(params, fwd, projections=projections)

    theirs = {name: torch.tensor(value, requires_grad=True) for name, value in params.items()}
    loss, scores = torch_loss(torch, theirs, batch, n_layers=n_layers, projections=projections, scale=scale)
    loss.backward()
    assert fwd.loss == pytest.approx(loss.item(), rel=1e-12)
    assert set(ours.grads) == set(params)
    for name, grad in ours.grads.items():
        expected = theirs[name].grad.numpy()
        assert np.abs(expected).max() > 0, f"{name} gets no gradient at all: the comparison would be empty"
        np.testing.assert_allclose(grad, expected, rtol=1e-9, atol=1e-12, err_msg=name)
    for layer, (grad, torch_scores) in enumerate(zip(ours.score_grads, scores, strict=True), start=1):
        expected = torch_scores.grad.numpy()
        np.testing.assert_allclose(grad, np.where(np.isfinite(expected), expected, 0.0), rtol=1e-9, atol=1e-12,
                                   err_msg=f"gradient reaching the scores of layer {layer}")


@pytest.mark.parametrize("projections", PROJECTIONS)
def test_every_gradient_matches_central_finite_differences(projections: str) -> None:
    d_model, n_layers = 3, 2
    d_k = d_model if projections == "none" else 2
    scale = 1.0 / math.sqrt(d_k)
    params = random_parameters(7, d_model=d_model, d_k=d_k, n_layers=n_layers, projections=projections)
    batch = s.batch(SENTENCES[:2] + SENTENCES[4:5], [LABELS[0], LABELS[1], LABELS[4]])

    def loss() -> float:
        return forward(params, batch, n_layers=n_layers, projections=projections, scale=scale).loss

    grads = backward(params, forward(params, batch, n_layers=n_layers, projections=projections, scale=scale),
                     projections=projections).grads
    eps = 1e-6
    checked = 0
    for name, value in params.items():
        numeric = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            saved = value[index]
            value[index] = saved + eps
            up = loss()
            value[index] = saved - eps
            down = loss()
            value[index] = saved
            numeric[index] = (up - down) / (2 * eps)
        np.testing.assert_allclose(grads[name], numeric, rtol=1e-5, atol=1e-8, err_msg=name)
        checked += value.size
    assert checked == sum(value.size for value in params.values())


def test_padding_changes_nothing_for_a_sentence() -> None:
    """A sentence padded inside a batch gets the same answer as on its own: padding keys get weight 0."""
    params = random_parameters(3, d_model=6, d_k=5, n_layers=2, projections="separate")
    options = {"n_layers": 2, "projections": "separate", "scale": 0.5}
    together = forward(params, s.batch(SENTENCES, LABELS), **options)
    alone = forward(params, s.batch(SENTENCES[4:5], LABELS[4:5]), **options)
    np.testing.assert_allclose(together.probabilities[4], alone.probabilities[0], rtol=1e-12)
    assert (together.layers[1].weights[4][:, -1] == 0.0).all()


def test_the_word_readout_gradients_match_central_finite_differences() -> None:
    """The referent task's readout scores every noun's token embedding: those rows get the readout's gradient too."""
    from qkv.learning import referent_sentences as r

    d_model, n_layers = 3, 2
    rng = np.random.default_rng(11)
    params = init_parameters(rng, d_model=d_model, d_k=2, n_layers=n_layers, projections="separate",
                             vocabulary_size=len(r.VOCABULARY), max_length=r.MAX_LENGTH)
    batch = r.batch(["the dog didn't cross the road with the box because it was too heavy",
                     "because it was far too tired the cat didn't carry the bag across the river"], ["box", "cat"])
    options = {"n_layers": n_layers, "projections": "separate", "scale": 0.7, "outputs": r.OUTPUTS}
    grads = backward(params, forward(params, batch, **options), projections="separate").grads
    eps = 1e-6
    for name, value in params.items():
        numeric = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            saved = value[index]
            value[index] = saved + eps
            up = forward(params, batch, **options).loss
            value[index] = saved - eps
            down = forward(params, batch, **options).loss
            value[index] = saved
            numeric[index] = (up - down) / (2 * eps)
        np.testing.assert_allclose(grads[name], numeric, rtol=1e-5, atol=1e-8, err_msg=name)
    # A noun that is in neither sentence still gets gradient: it is a wrong answer the readout pushes down.
    assert np.abs(grads["embedding"][r.VOCABULARY.index("goat")]).max() > 0
