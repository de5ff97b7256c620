"""The experiments the page reports, as options of `train_coreference`, and what to read off each model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from qkv.learning import sentences as s
from qkv.learning.training import CoreferenceModel, train_coreference

LARGE_D_K = 64  # "a large d_k" (the article: 64 or 128 in real models): q·k then has a standard deviation of 8

EXPERIMENTS: dict[str, dict[str, Any]] = {
    "baseline": {},
    "one layer": {"n_layers": 1},
    "scale 1": {"d_k": LARGE_D_K, "scale": 1.0},
    "scale 1/√d_k": {"d_k": LARGE_D_K},
    "scale 1/d_k": {"d_k": LARGE_D_K, "scale": 1.0 / LARGE_D_K},
    "tied W_Q = W_K": {"projections": "tied"},
    "no projections": {"projections": "none"},
}


def run_experiments(seed: int = 0) -> dict[str, CoreferenceModel]:
    """Every experiment of `EXPERIMENTS`, trained with the same seed."""
    return {name: train_coreference(seed, **options) for name, options in EXPERIMENTS.items()}


@dataclass(frozen=True)
class ReferentAttention:
    """How much "it" attends to the word it refers to, layer by layer, over a set of sentences."""

    to_referent: np.ndarray  # (n_layers,): mean weight from "it" to the right candidate
    to_other: np.ndarray  # (n_layers,): mean weight from "it" to the other candidate
    argmax_is_referent: np.ndarray  # (n_layers,): share of sentences whose "it" row peaks at the referent


def referent_attention(model: CoreferenceModel, sentences: s.Sentences | None = None) -> ReferentAttention:
    """Measure where "it" looks: on `sentences` (default: every held-out sentence), with their answers."""
    batch = s.corpus(heldout=True) if sentences is None else sentences
    rows = np.arange(len(batch))
    referent = batch.candidates[rows, batch.labels]  # (B,)
    other = batch.candidates[rows, 1 - batch.labels]  # (B,)
    weights = model.attention_batch(batch)  # (n_layers, B, n, n)
    it_rows = weights[:, rows, batch.it]  # (n_layers, B, n)
    return ReferentAttention(
        to_referent=it_rows[:, rows, referent].mean(axis=1),
        to_other=it_rows[:, rows, other].mean(axis=1),
        argmax_is_referent=(it_rows.argmax(axis=2) == referent).mean(axis=1),
    )
