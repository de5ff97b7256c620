"""Attention masks: which keys each query may look at (True = may attend, as in PyTorch)."""

from __future__ import annotations

import functools

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


@functools.lru_cache(maxsize=16)
def causal_block_hidden(rows: int, keys: int, offset: int) -> np.ndarray:
    """Boolean (rows, keys): True where a causal mask hides key j of a block from its query i.

    The block's first query is `offset` positions after its first key, so query i is at key position
    i + offset and hides every key after it. The kernels' diagonal blocks repeat a few such patterns:
    each is made once and kept, read-only.

    >>> causal_block_hidden(2, 3, 0)
    array([[False,  True,  True],
           [False, False,  True]])
    """
    hidden = np.arange(keys) > np.arange(offset, offset + rows)[:, None]
    hidden.flags.writeable = False
    return hidden
