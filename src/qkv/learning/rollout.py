"""Attention rollout (Abnar & Zuidema, 2020): how much of each input word flows into each position through all layers.

Raw attention says where one layer's row looks; the row of "it" in layer 2 mixes vectors that
layer 1 has already mixed. Rollout follows the mixing back to the words. Per layer l:

    Â_l = (1 − r)·A_l + r·I, each row divided by its sum,
    R_l = Â_l · Â_(l−1) ⋯ Â_1,

so R_l[i, j] is the share of word j in what position i holds after layer l, if each layer's
output were the weighted average Â_l · H of its input (rows of Â sum to 1, so R's do too).

The residual weight r. This network's layer is H ← H + A·V: the residual and the attention's
output are added with coefficient 1 each, with no normalisation after. We use Abnar & Zuidema's
r = 0.5, which is this equal-coefficient sum up to a factor of 2 (H + A·V = 2·(½H + ½A·V)), and
which treats V as if it kept each vector's size. It is a convention, not a measurement: the real
share of the residual depends on ‖H‖ against ‖A·V‖, so `residual=` lets a reader try others
(r = 0: attention only, R = A_L ⋯ A_1; with one layer that is the raw attention).
Rollout is a description of the weights, not a causal test: `qkv.learning.ablation` is that.

>>> from qkv.learning import train_referent
>>> model = train_referent(seed=0, steps=60)
>>> sentence = "The animal didn't cross the street because it was too tired"
>>> r = rollout(model, sentence)
>>> r.shape, bool(np.allclose(r.sum(axis=-1), 1.0, rtol=1e-12))
((2, 11, 11), True)
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from qkv.learning.sentences import Sentences
from qkv.learning.training import CoreferenceModel


def _residual(value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"residual must be a real number in [0, 1], got {value!r}")
    r = float(value)
    if not (math.isfinite(r) and 0.0 <= r <= 1.0):
        raise ValueError(f"residual must be in [0, 1], got {r}")
    return r


def rollout_weights(attention: np.ndarray, *, residual: Any = 0.5) -> np.ndarray:
    """R_1 … R_L from the layers' weights `attention` (L, …, n, n): the rollout after each layer.

    >>> a = np.array([[[0.0, 1.0], [0.0, 1.0]], [[1.0, 0.0], [1.0, 0.0]]])  # layer 1 looks at word 1, layer 2 at word 0
    >>> rollout_weights(a, residual=0.0)[-1]  # word 0 holds word 1 after layer 1: everything comes from word 1
    array([[0., 1.],
           [0., 1.]])
    >>> rollout_weights(a)[-1]  # with the residual: (½A₂ + ½I)·(½A₁ + ½I)
    array([[0.5 , 0.5 ],
           [0.25, 0.75]])
    """
    r = _residual(residual)
    a = np.asarray(attention, dtype=np.float64)
    eye = np.eye(a.shape[-1])
    rolled, out = None, []
    for layer in a:
        hat = (1.0 - r) * layer + r * eye  # (…, n, n)
        hat = hat / hat.sum(axis=-1, keepdims=True)  # rows sum to 1 already where A's do; this keeps them so
        rolled = hat if rolled is None else hat @ rolled  # Â_l · R_(l−1)
        out.append(rolled)
    return np.stack(out)


def rollout(model: CoreferenceModel, sentence: str, *, residual: Any = 0.5) -> np.ndarray:
    """(n_layers, n, n): the rollout after each layer on `sentence`; the last is through the whole model."""
    return rollout_weights(model.attention(sentence), residual=residual)


def rollout_batch(model: CoreferenceModel, batch: Sentences, *, residual: Any = 0.5) -> np.ndarray:
    """(n_layers, B, n, n): the rollout after each layer for every sentence of `batch` (padding gets 0)."""
    return rollout_weights(model.attention_batch(batch), residual=residual)
