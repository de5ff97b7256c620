"""Attention masks: which keys each query may look at (True = may attend, as in PyTorch)."""

from __future__ import annotations

import numpy as np

from qkv._checks import check_positive_int


def causal_mask(n: int) -> np.ndarray:
    """Boolean (n, n) lower-triangular mask: token i may attend to tokens 0..i, never to later ones.

    This is the mask of decoder-only models (GPT, LLaMA): while generating token i the
    later tokens do not exist yet, so attending to them would be cheating.

    >>> causal_mask(3)
    array([[ True, False, False],
           [ True,  True, False],
           [ True,  True,  True]])
    """
    n = check_positive_int(n, "n")
    return np.tril(np.ones((n, n), dtype=bool))
