"""The numbers of the page “Q、K、V 的直觉理解 / Q, K and V: the intuition”.

Exercise 1 compares a query with the same query ten times larger; the sentences around it (every
value gets a share; the larger query's output is almost exactly v₁) are checked here.

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> [row.weights for row in values(project)["lookups"]]
['[0.6698, 0.3302]', '[0.9992, 0.0008]']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from qkv import scaled_dot_product_attention, self_attention
from qkv.examples import worked_example
from qkv_site.content.claims import ClaimError
from qkv_site.content.formatting import vector
from qkv_site.project import Project

KEYS = np.array([[1.0, 0.0], [0.0, 1.0]])  # (2 keys, d_k = 2)
VALUES = np.array([[10.0, 0.0], [0.0, 10.0]])  # (2 keys, d_v = 2)
QUERIES = np.array([[1.0, 0.0], [10.0, 0.0]])  # q, then 10 q
NEARLY_ONE_HOT = 0.999  # "almost exactly v1": the larger query gives k1 at least this share


def _require(holds: bool, sentence: str) -> None:
    """Stop the build when the numbers no longer support what the page's sentence says of them."""
    if not holds:
        raise ClaimError(f"intuition.md: the data no longer support the sentence: {sentence}")


@dataclass(frozen=True)
class Lookup:
    """One row of exercise 1's table: a query, its weights over the two keys, its output."""

    query: str
    weights: str
    output: str


def _lookups() -> list[Lookup]:
    output, weights = scaled_dot_product_attention(QUERIES, KEYS, VALUES)  # (2, 2), (2, 2)
    _require(bool(np.all(weights[0] > 0)) and weights[0, 0] < weights[1, 0],
             "a soft lookup mixes every value; the larger query's weights are closer to one-hot")
    _require(weights[1, 0] >= NEARLY_ONE_HOT, "with the query ten times larger the output is almost exactly v1")
    return [Lookup(vector(q), vector(w, 4), vector(o)) for q, w, o in zip(QUERIES, weights, output, strict=True)]


def _weighted_average() -> None:
    example = worked_example()
    output, weights = self_attention(example.x, example.w_q, example.w_k, example.w_v)
    v = example.x @ example.w_v  # (2, 3)
    _require(bool((weights >= 0).all()) and np.allclose(weights.sum(axis=-1), 1) and np.allclose(output, weights @ v)
             and bool((output >= v.min(axis=0)).all() and (output <= v.max(axis=0)).all()),
             "the output is a weighted average of the values and lies inside their range")


@cache
def values(project: Project) -> dict[str, Any]:
    _weighted_average()
    return {"lookups": _lookups()}
