"""The numbers of the page “Self-Attention vs Cross-Attention”.

The figure's alt text says, for each heatmap, where each row is brightest; the page writes those
sentences from `heatmaps` (the heaviest keys of each row, and a flag naming where the brightest cells
lie relative to the diagonal). Its caption says the cross-attention lines up along the diagonal,
and exercise 2 that a causal mask shares out what “love” gave “cats” between “I” and itself: both
are checked here against the weights.

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> [row.keys for row in values(project)["heatmaps"]["encoder"]["rows"]]
[['love'], ['I', 'cats'], ['love']]
>>> values(project)["heatmaps"]["encoder"]["diagonal"], values(project)["heatmaps"]["cross"]["diagonal"]
('none', 'all')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from qkv import causal_mask, self_attention
from qkv.examples import translation_example
from qkv_site.project import Project
from qkv_site.values.claims import Claims, equal, greater, largest_ties
from qkv_site.values.formatting import percent

PAGE = "self-vs-cross.md"
claims = Claims(PAGE)


def brightest(weights: np.ndarray) -> list[list[int]]:
    """For each row (query), the columns (keys) with its largest weight: more than one when they tie (to rounding).

    >>> brightest(np.array([[0.2, 0.8], [0.5, 0.5]]))
    [[1], [0, 1]]
    """
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 2 or weights.size == 0:
        raise ValueError(f"weights must be a non-empty 2-D matrix, got shape {weights.shape}")
    return [largest_ties(row, scale=1.0) for row in weights]  # weights are at most 1


def diagonal(weights: np.ndarray) -> str:
    """Where the brightest cells of a heatmap lie: ``all`` on the diagonal (alone), ``none`` or ``some``.

    >>> diagonal(np.eye(3) + 0.1), diagonal(np.array([[0.2, 0.8], [0.5, 0.5]])), diagonal(np.array([[0.2, 0.8], [0.8, 0.2]]))
    ('all', 'some', 'none')
    """
    rows = brightest(weights)
    if np.shape(weights)[0] == np.shape(weights)[1] and all(columns == [i] for i, columns in enumerate(rows)):
        return "all"
    return "some" if any(i in columns for i, columns in enumerate(rows)) else "none"


@dataclass(frozen=True)
class Heaviest:
    """One row of a heatmap, as the alt text describes it: the query and its heaviest key(s)."""

    query: str
    keys: list[str]

    @property
    def tie(self) -> bool:
        return len(self.keys) > 1


def heatmap(weights: np.ndarray, queries: Sequence[str], keys: Sequence[str]) -> dict[str, Any]:
    """What the alt text says of one heatmap: each row's heaviest keys, and where they lie (`diagonal`)."""
    if np.shape(weights) != (len(queries), len(keys)):
        raise ValueError(f"weights of shape {np.shape(weights)} for {len(queries)} queries and {len(keys)} keys")
    rows = [Heaviest(query, [keys[j] for j in columns]) for query, columns in zip(queries, brightest(weights), strict=True)]
    return {"rows": rows, "diagonal": diagonal(weights)}


def _figure() -> dict[str, Any]:
    example = translation_example()
    source, target = list(example.source_tokens), list(example.target_tokens)
    for token in source + target:
        claims.require(not set(token) & set("[]"), sentence=f"the alt text names {token!r}; a square bracket would end it early")
    self_map = heatmap(example.encoder.weights, source, source)
    cross_map = heatmap(example.cross.weights, target, source)
    claims.require(len(target) == len(source), cross_map["diagonal"] == "all",
                   sentence="look at the diagonal: each target word lines up with the source word in its place "
                   f"({brightest(example.cross.weights)})")
    love, cat = source.index("love"), target.index("猫")
    claims.require(self_map["rows"][love].keys == ["I", "cats"], cross_map["rows"][cat].keys == ["cats"],
                   sentence="the Q of love finds I and cats most relevant; the Q of 猫 finds cats")
    return {"source": " ".join(source), "target": " ".join(target), "encoder": self_map, "cross": cross_map,
            "pairs": [{"target": t, "source": s} for t, s in zip(target, source, strict=True)]}


@dataclass(frozen=True)
class Share:
    token: str
    share: str


def _exercise_2() -> dict[str, list[Share]]:
    encoder = translation_example().encoder
    tokens = list(encoder.tokens)
    _, masked = self_attention(encoder.x, encoder.w_q, encoder.w_k, encoder.w_v, mask=causal_mask(len(tokens)))
    i, love, cats = tokens.index("I"), tokens.index("love"), tokens.index("cats")
    before, after = encoder.weights[love], masked[love]
    claims.require(bool(after[cats] == 0),  # exact: a masked key's weight is exp(-inf) = 0 on every machine
                   greater(before[cats], 0, scale=1.0), equal(after[i] / after[love], before[i] / before[love]),
                   sentence="love no longer sees cats; what it gave cats is shared out between I and itself in proportion")
    return {name: [Share(token, percent(w)) for token, w in zip(tokens, row, strict=True)]
            for name, row in (("unmasked", before), ("masked", after))}


@cache
def values(project: Project) -> dict[str, Any]:
    return {"heatmaps": _figure(), "exercise_2": _exercise_2()}
