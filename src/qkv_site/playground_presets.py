"""The attention playground's presets, exported from `qkv.examples` as JSON so the page's JavaScript starts from the
same numbers."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from qkv.examples import it_animal_sentence, worked_example

PRESETS_ID = "qkv-playground-presets"

# The playground lets a reader grow a sentence to 6 tokens by hand. A preset may bring more (the
# "it" → "animal" sentence has 12): trimming it would change every softmax row and so the very
# numbers the article's illustration rests on. The JavaScript reads both limits from the JSON.
MAX_TOKENS = 6
MAX_PRESET_TOKENS = 12
MAX_DIM = 8


def _table(values: ArrayLike) -> list[list[int | float]]:
    # Integers stay integers in the JSON ("1", not "1.0"), so the cells show what the article shows.
    array = np.asarray(values, dtype=float)
    return [[int(v) if float(v).is_integer() else float(v) for v in row] for row in array]


def _preset(tokens: Sequence[str], x: ArrayLike, w_q: ArrayLike, w_k: ArrayLike, w_v: ArrayLike, scaling: str = "sqrt_d_k",
            causal: bool = False) -> dict[str, Any]:
    return {
        "tokens": list(tokens),
        "x": _table(x),
        "w_q": _table(w_q),
        "w_k": _table(w_k),
        "w_v": _table(w_v),
        "scaling": scaling,  # one of qkv.analysis.SCALINGS: "none", "d_k", "sqrt_d_k"
        "causal": causal,
    }


def presets() -> dict[str, object]:
    """The limits and the presets of the playground, built from `qkv.examples`.

    - ``article``: the worked example "I love" (X and W_Q from the article, our W_K and W_V);
    - ``no-projection``: the same X with W_Q = W_K = W_V = I, i.e. Q = K = V = X, the degenerate
      case of "why three matrices?" (d_k = d_model);
    - ``it-animal``: "The animal didn't cross the street because it was too tired ." with the
      hand-built weights of `qkv.examples.it_animal_sentence` (12 tokens, above the 6 a reader
      can add by hand, so that its weights stay exactly the ones the site quotes).

    >>> data = presets()
    >>> list(data["presets"])
    ['article', 'no-projection', 'it-animal']
    >>> data["presets"]["article"]["x"], data["presets"]["article"]["scaling"]
    ([[1, 0, 1, 0], [0, 1, 0, 1]], 'sqrt_d_k')
    >>> data["presets"]["no-projection"]["w_k"][1]
    [0, 1, 0, 0]
    >>> animal = data["presets"]["it-animal"]
    >>> len(animal["tokens"]), len(animal["x"][0]), len(animal["w_q"][0]), len(animal["w_v"][0])
    (12, 6, 2, 6)
    >>> data["limits"]
    {'max_tokens': 6, 'max_preset_tokens': 12, 'max_dim': 8, 'min_tokens': 2}
    """
    article = worked_example()
    identity = np.eye(article.x.shape[1], dtype=int)
    animal = it_animal_sentence()
    chosen = {
        "article": _preset(article.tokens, article.x, article.w_q, article.w_k, article.w_v),
        "no-projection": _preset(article.tokens, article.x, identity, identity, identity),
        "it-animal": _preset(animal.tokens, animal.x, animal.w_q, animal.w_k, animal.w_v),
    }
    for name, preset in chosen.items():
        n, d_model = len(preset["x"]), len(preset["x"][0])
        dims = (d_model, len(preset["w_q"][0]), len(preset["w_v"][0]))
        if not 2 <= n <= MAX_PRESET_TOKENS or max(dims) > MAX_DIM:
            raise ValueError(f"preset {name!r} does not fit the playground: {n} tokens, dims {dims}")
    limits = {"max_tokens": MAX_TOKENS, "max_preset_tokens": MAX_PRESET_TOKENS, "max_dim": MAX_DIM, "min_tokens": 2}
    return {"limits": limits, "presets": chosen}


def presets_script() -> str:
    """The presets as the ``<script type="application/json">`` element the playground reads.

    >>> presets_script().startswith('<script type="application/json" id="qkv-playground-presets">{')
    True
    """
    # "</" would end the script element early; "<\\/" is the same JSON string.
    text = json.dumps(presets(), ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return f'<script type="application/json" id="{PRESETS_ID}">{text}</script>'
