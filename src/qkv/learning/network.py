"""The two-layer transformer of `qkv.learning`, forward and backward, written out step by step in numpy.

Each layer is single-head self-attention with a residual connection and no W_O (the values are
already d_model wide): H' = H + softmax(Q·Kᵀ · scale) · V, with Q = H·W_Q, K = H·W_K, V = H·W_V.
The readout compares the final vector at "it" with one target vector per answer, logit_c =
h_it · t_c / √d_model, and a softmax over the answers. In the first task (`qkv.learning.sentences`)
the targets are the position embeddings of the two candidates (the animal's and the place's
positions); in the referent task (`qkv.learning.referent_sentences`, `outputs=` given) they are the
token embeddings of every noun of the vocabulary, the same vectors the input uses, so the model
answers with a word (the embeddings learn from both uses).

`edit`, an optional hook of `forward`, receives each layer's attention weights (layer, (B, n, n))
and returns the weights the layer then uses: ablation (`qkv.learning.ablation`) removes an edge
this way, through the model's own forward pass.

`projections` chooses what makes Q, K and V:

- "separate": W_Q, W_K, W_V of each layer are three matrices (d_model×d_k, d_model×d_k, d_model×d_model);
- "tied": one matrix W_QK serves as W_Q and W_K, so the scores H·W_QK·W_QKᵀ·Hᵀ are symmetric;
- "none": Q = K = V = H (d_k = d_model), so only the embeddings are learned.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from qkv.learning.sentences import MAX_LENGTH, VOCABULARY, Sentences
from qkv.softmax import softmax

PROJECTIONS: tuple[str, ...] = ("separate", "tied", "none")

Parameters = dict[str, np.ndarray]
Edit = Callable[[int, np.ndarray], np.ndarray]  # (layer counted from 1, weights (B, n, n)) -> weights used


def parameter_names(n_layers: int, projections: str) -> list[str]:
    """The parameters' names, layer by layer (layers count from 1, as on the page).

    >>> parameter_names(2, "tied")
    ['embedding', 'position', 'w_qk1', 'w_v1', 'w_qk2', 'w_v2']
    """
    per_layer = {"separate": ("w_q", "w_k", "w_v"), "tied": ("w_qk", "w_v"), "none": ()}[projections]
    return ["embedding", "position", *(f"{name}{layer}" for layer in range(1, n_layers + 1) for name in per_layer)]


def init_parameters(rng: np.random.Generator, *, d_model: int, d_k: int, n_layers: int, projections: str,
                    vocabulary_size: int = len(VOCABULARY), max_length: int = MAX_LENGTH) -> Parameters:
    """Random parameters drawn so that every component of x, q and k starts with variance 1.

    Token and position embeddings are N(0, 1/2) each, so x = token + position has unit-variance
    components; every W is N(0, 1/d_model), so q = x·W_Q (a sum of d_model such products) has
    unit-variance components too: then q·k has variance d_k, the article's premise for 1/√d_k.

    >>> p = init_parameters(np.random.default_rng(0), d_model=4, d_k=3, n_layers=1, projections="separate")
    >>> {name: p[name].shape for name in p}
    {'embedding': (37, 4), 'position': (11, 4), 'w_q1': (4, 3), 'w_k1': (4, 3), 'w_v1': (4, 4)}
    """
    params: Parameters = {
        "embedding": rng.normal(0.0, math.sqrt(0.5), (vocabulary_size, d_model)),
        "position": rng.normal(0.0, math.sqrt(0.5), (max_length, d_model)),
    }
    for name in parameter_names(n_layers, projections)[2:]:
        width = d_model if name.startswith("w_v") else d_k
        params[name] = rng.normal(0.0, 1.0 / math.sqrt(d_model), (d_model, width))
    return params


@dataclass(frozen=True, eq=False)
class Layer:
    """What one layer's forward pass keeps for the backward pass."""

    h: np.ndarray  # (B, n, d_model): the layer's input
    q: np.ndarray  # (B, n, d_k)
    k: np.ndarray  # (B, n, d_k)
    v: np.ndarray  # (B, n, d_model)
    weights: np.ndarray  # (B, n, n): softmax of the scores, 0 on padding keys


@dataclass(frozen=True, eq=False)
class Forward:
    """The forward pass on a batch: the loss, the answers and everything the backward pass needs."""

    loss: float  # mean cross-entropy of the right candidate
    probabilities: np.ndarray  # (B, 2): P(animal), P(place) for each sentence
    layers: tuple[Layer, ...]
    x: np.ndarray  # (B, n, d_model): token + position embeddings
    out: np.ndarray  # (B, d_model): the final vector at "it"
    targets: np.ndarray  # (B, C, d_model): the answers' vectors (the candidates' positions, or the nouns' words)
    target_table: str  # "position" or "embedding": the parameter the targets are rows of
    target_rows: np.ndarray  # (B, C) int: which rows
    batch: Sentences
    scale: float


def _linear(h: np.ndarray, w: np.ndarray) -> np.ndarray:
    """h·w, (B, n, d_in) @ (d_in, d_out) -> (B, n, d_out).

    Kept 3-D on purpose: numpy then multiplies one small n×d_in matrix per sentence, each far too
    small for OpenBLAS to share out between threads. Reshaped to one (B·n, d_in) product it would
    be threaded, which is slower here on a busy machine (threads wait for each other).
    """
    product: np.ndarray = h @ w
    return product


def _weight_grad(h: np.ndarray, d_out: np.ndarray) -> np.ndarray:
    """Σ over sentences of hᵀ·d_out: (d_in, d_out), the gradient of w in out = h·w (one small product per sentence)."""
    grad: np.ndarray = (np.swapaxes(h, -1, -2) @ d_out).sum(axis=0)  # (B, d_in, n) @ (B, n, d_out), summed over B
    return grad


def _qkv(h: np.ndarray, params: Mapping[str, np.ndarray], layer: int,
         projections: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if projections == "none":
        return h, h, h  # Q = K = V = H
    w_q = params[f"w_qk{layer}"] if projections == "tied" else params[f"w_q{layer}"]
    w_k = params[f"w_qk{layer}"] if projections == "tied" else params[f"w_k{layer}"]
    return _linear(h, w_q), _linear(h, w_k), _linear(h, params[f"w_v{layer}"])  # (B, n, d_k), (B, n, d_k), (B, n, d_model)


def forward(params: Mapping[str, np.ndarray], batch: Sentences, *, n_layers: int, projections: str, scale: float,
            outputs: np.ndarray | None = None, edit: Edit | None = None) -> Forward:
    """Embed, run `n_layers` attention layers with residuals, read out at "it"; returns a `Forward`.

    `outputs` (C,) int: the vocabulary ids of the answers (the referent task), whose token
    embeddings are the targets; None: the targets are the position embeddings of `batch.candidates`.
    `edit(layer, weights)`: the weights each layer then uses (rows of padding keys must stay 0).
    """
    rows = np.arange(len(batch))
    n = batch.ids.shape[1]
    x = params["embedding"][batch.ids] + params["position"][:n]  # (B, n, d_model)
    padding = ~batch.mask[:, None, :]  # (B, 1, n): no query may attend to a padding key
    h, layers = x, []
    for layer in range(1, n_layers + 1):
        q, k, v = _qkv(h, params, layer, projections)
        scores = q @ np.swapaxes(k, -1, -2) * scale  # (B, n, d_k) @ (B, d_k, n) -> (B, n, n)
        scores = np.where(padding, -np.inf, scores)  # exp(-inf) = 0
        weights = softmax(scores)  # (B, n, n), each row sums to 1
        if edit is not None:
            weights = edit(layer, weights)
        layers.append(Layer(h, q, k, v, weights))
        h = h + weights @ v  # residual: (B, n, n) @ (B, n, d_model) -> (B, n, d_model)
    out = h[rows, batch.it]  # (B, d_model): the prediction reads the vector at "it" only
    if outputs is None:
        table, target_rows = "position", batch.candidates  # (B, 2): where the animal and the place are
    else:
        table, target_rows = "embedding", np.broadcast_to(outputs, (len(batch), len(outputs)))  # (B, C): every noun
    targets = params[table][target_rows]  # (B, C, d_model)
    d_model = x.shape[-1]
    logits = np.einsum("bd,bcd->bc", out, targets) / math.sqrt(d_model)  # (B, C)
    log_p = logits - logits.max(axis=1, keepdims=True)
    log_p = log_p - np.log(np.exp(log_p).sum(axis=1, keepdims=True))  # log-softmax, (B, C)
    loss = float(-log_p[rows, batch.labels].mean())
    return Forward(loss, np.exp(log_p), tuple(layers), x, out, targets, table, target_rows, batch, scale)


@dataclass(frozen=True, eq=False)
class Backward:
    """The gradient of the loss for every parameter, and the gradient that reached each layer's scores."""

    grads: Parameters
    score_grads: tuple[np.ndarray, ...]  # one (B, n, n) array per layer: ∂loss/∂scores


def backward(params: Parameters, fwd: Forward, *, projections: str) -> Backward:
    """The forward pass in reverse, one line per line of `forward`: ∂loss/∂(every parameter)."""
    batch = fwd.batch
    size, n = batch.ids.shape
    rows = np.arange(size)
    d_model = fwd.x.shape[-1]
    # Readout: loss = -mean log softmax(logits)[label], logits = out·targets / √d_model.
    d_logits = fwd.probabilities.copy()  # (B, C)
    d_logits[rows, batch.labels] -= 1.0
    d_logits /= size
    d_out = np.einsum("bc,bcd->bd", d_logits, fwd.targets) / math.sqrt(d_model)  # (B, d_model)
    d_targets = d_logits[:, :, None] * fwd.out[:, None, :] / math.sqrt(d_model)  # (B, C, d_model)
    d_h = np.zeros_like(fwd.x)  # (B, n, d_model)
    d_h[rows, batch.it] = d_out
    grads: Parameters = {}
    score_grads = []
    for layer in range(len(fwd.layers), 0, -1):
        cache = fwd.layers[layer - 1]
        a = cache.weights  # (B, n, n)
        # h_next = h + a·v: the residual passes d_h on unchanged, and a·v adds to it.
        d_a = d_h @ np.swapaxes(cache.v, -1, -2)  # (B, n, d_model) @ (B, d_model, n) -> (B, n, n)
        d_v = np.swapaxes(a, -1, -2) @ d_h  # (B, n, n) @ (B, n, d_model) -> (B, n, d_model)
        # softmax's Jacobian, row by row: ds_j = a_j (da_j − Σ_i a_i da_i); 0 where a = 0 (padding).
        d_scores = a * (d_a - (d_a * a).sum(axis=-1, keepdims=True))  # (B, n, n)
        score_grads.append(d_scores)
        d_q = d_scores @ cache.k * fwd.scale  # (B, n, n) @ (B, n, d_k) -> (B, n, d_k)
        d_k = np.swapaxes(d_scores, -1, -2) @ cache.q * fwd.scale  # (B, n, d_k)
        if projections == "none":  # q = k = v = h
            d_h = d_h + d_q + d_k + d_v
            continue
        w_v = params[f"w_v{layer}"]
        grads[f"w_v{layer}"] = _weight_grad(cache.h, d_v)  # (d_model, d_model)
        if projections == "tied":
            w_q = w_k = params[f"w_qk{layer}"]
            grads[f"w_qk{layer}"] = _weight_grad(cache.h, d_q) + _weight_grad(cache.h, d_k)  # both uses add up
        else:
            w_q, w_k = params[f"w_q{layer}"], params[f"w_k{layer}"]
            grads[f"w_q{layer}"] = _weight_grad(cache.h, d_q)  # (d_model, d_k)
            grads[f"w_k{layer}"] = _weight_grad(cache.h, d_k)
        d_h = d_h + _linear(d_q, w_q.T) + _linear(d_k, w_k.T) + _linear(d_v, w_v.T)  # (B, n, d_model)
    d_x = d_h  # after the first layer, d_h is the gradient of the embeddings' sum x
    d_embedding = np.zeros_like(params["embedding"])
    np.add.at(d_embedding, batch.ids.ravel(), d_x.reshape(size * n, d_model))  # a word's rows add up
    d_position = np.zeros_like(params["position"])
    d_position[:n] = d_x.sum(axis=0)
    d_table = d_position if fwd.target_table == "position" else d_embedding
    np.add.at(d_table, fwd.target_rows.ravel(), d_targets.reshape(-1, d_model))  # the readout's use of them
    grads["embedding"], grads["position"] = d_embedding, d_position
    ordered = {name: grads[name] for name in params}
    return Backward(ordered, tuple(reversed(score_grads)))
