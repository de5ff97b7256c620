"""`train_referent`: the same network and training loop on the task whose answer is the referent's word."""

from __future__ import annotations

from typing import Any

from qkv.learning.training import CoreferenceModel, _train, make_options

# The referent task's defaults where they differ from `train_coreference`'s: a wider model (24 nouns to
# tell apart by their embeddings alone) and twice the steps. Chosen on seeds 0 and 1: d_model = 24 ended
# at 92 % and 66 % after 600 steps, 93 % and 81 % after 1,000; d_model = 32 at 96 % and 99 % after 600.
REFERENT_DEFAULTS: dict[str, Any] = {"d_model": 32, "steps": 600}


def train_referent(seed: Any = 0, **options: Any) -> CoreferenceModel:
    """Train the two-layer model on the referent task (`qkv.learning.referent_sentences`) and return it.

    The options are `train_coreference`'s (keyword-only), with d_model=32 and steps=600 by default.
    `resolve` answers with a noun of the vocabulary, `probabilities` gives every noun's.

    >>> model = train_referent(seed=0, steps=60)  # a short run, to show the API
    >>> model.tokens("The animal didn't cross the street because it was too wide")[-4:]
    ['it', 'was', 'too', 'wide']
    >>> model.attention("The animal didn't cross the street because it was too wide").shape  # (layers, n, n)
    (2, 11, 11)
    >>> len(model.probabilities("The animal didn't cross the street because it was too wide"))  # every noun
    24
    """
    if "task" in options:
        raise TypeError("train_referent() got an unexpected keyword argument 'task' (it is the referent task)")
    return _train(make_options(seed, task="referent", **{**REFERENT_DEFAULTS, **options}))
