"""Ablation: remove the edge "it" → referent from the attention and count what the model still gets right.

For every sentence and every chosen layer, the weight of "it"'s row on the referent is set to 0
and the row is divided by its new sum (so it still sums to 1; a row that had everything on the
referent is left all 0, and the layer then adds nothing at "it"). The edit is a hook of the
model's own forward pass (`CoreferenceModel.forward(batch, edit=…)`), so later layers see its
effect. The control removes, in the same rows, the edge to another word of about the same weight:
the real word of the sentence, neither the referent nor "it" itself, whose weight in that row is
closest to the referent's (chosen from the row as that layer computes it, after any edit of the
layers below). If accuracy falls when the referent's edge goes and not when the control's does,
the model uses attention to the referent; if neither moves, it does not need that edge.

>>> from qkv.learning import train_referent
>>> from qkv.learning import referent_sentences as r
>>> model = train_referent(seed=0, steps=60)
>>> result = ablate(model, r.batch(list(r.PROBES), ["animal", "street"]), layers=(2,))
>>> result.total, result.layers
(2, (2,))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from qkv.learning.sentences import Sentences
from qkv.learning.training import CoreferenceModel

EDGES: tuple[str, ...] = ("referent", "control")


@dataclass(frozen=True)
class Ablation:
    """Counts of sentences resolved right, intact and with each edge removed, over `total` sentences."""

    layers: tuple[int, ...]
    total: int
    intact: int
    referent_removed: int
    control_removed: int
    referent_weight: float  # mean weight the referent's edge had where it was removed (over sentences and layers)
    control_weight: float  # the same for the control's edge
    p_right: tuple[float, float, float]  # mean probability of the right answer: intact, referent removed, control removed


def _check_layers(layers: Any, n_layers: int) -> tuple[int, ...]:
    if layers is None:
        return tuple(range(1, n_layers + 1))
    if not isinstance(layers, (tuple, list)) or not layers or not all(isinstance(x, int) and not isinstance(x, bool)
                                                                       for x in layers):
        raise TypeError(f"layers must be a non-empty tuple of ints (layers count from 1), got {layers!r}")
    if not all(1 <= x <= n_layers for x in layers):
        raise ValueError(f"layers must count from 1 to {n_layers}, got {tuple(layers)}")
    return tuple(sorted(set(layers)))


def _remove(weights: np.ndarray, it: np.ndarray, target: np.ndarray) -> np.ndarray:
    """`weights` (B, n, n) with the edge it_b → target_b set to 0 and "it"'s row renormalised."""
    rows = np.arange(len(it))
    edited = weights.copy()
    edited[rows, it, target] = 0.0
    total = edited[rows, it].sum(axis=-1, keepdims=True)  # (B, 1)
    edited[rows, it] = np.divide(edited[rows, it], total, out=np.zeros_like(edited[rows, it]), where=total > 0)
    return edited


def _control(weights: np.ndarray, batch: Sentences, referent: np.ndarray) -> np.ndarray:
    """(B,) per sentence, the real word (not the referent, not "it") whose weight from "it" is closest to the referent's."""
    rows = np.arange(len(batch))
    row = weights[rows, batch.it]  # (B, n)
    distance = np.abs(row - row[rows, referent][:, None])
    allowed = batch.mask.copy()
    allowed[rows, referent] = False
    allowed[rows, batch.it] = False
    control: np.ndarray = np.where(allowed, distance, np.inf).argmin(axis=1)
    return control


def ablate(model: CoreferenceModel, batch: Sentences | None = None, *, layers: Any = None) -> Ablation:
    """Remove "it" → referent (and, separately, the control edge) in `layers` (default: all), on `batch`.

    `batch`: labelled sentences of the model's task (default: its held-out set).
    """
    chosen = _check_layers(layers, model.options.n_layers)
    batch = model.task.heldout() if batch is None else batch
    if not isinstance(batch, Sentences):
        raise TypeError(f"batch must be labelled Sentences of the model's task, got {type(batch).__name__}")
    rows = np.arange(len(batch))
    referent = model.referents(batch)
    removed: dict[str, list[np.ndarray]] = {edge: [] for edge in EDGES}

    def edit_for(edge: str) -> Any:
        def edit(layer: int, weights: np.ndarray) -> np.ndarray:
            if layer not in chosen:
                return weights
            target = referent if edge == "referent" else _control(weights, batch, referent)
            removed[edge].append(weights[rows, batch.it, target])
            return _remove(weights, batch.it, target)
        return edit

    def run(edge: str | None) -> tuple[int, float]:
        fwd = model.forward(batch, edit=None if edge is None else edit_for(edge))
        right = fwd.probabilities.argmax(axis=1) == batch.labels
        return int(right.sum()), float(fwd.probabilities[rows, batch.labels].mean())

    (intact, p0), (ref, p1), (ctl, p2) = run(None), run("referent"), run("control")
    return Ablation(chosen, len(batch), intact, ref, ctl, float(np.mean(removed["referent"])),
                    float(np.mean(removed["control"])), (p0, p1, p2))
