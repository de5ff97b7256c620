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
from qkv_site.project import Project
from qkv_site.values.claims import Claims, at_least, at_most, equal, greater, less
from qkv_site.values.formatting import vector

KEYS = np.array([[1.0, 0.0], [0.0, 1.0]])  # (2 keys, d_k = 2)
VALUES = np.array([[10.0, 0.0], [0.0, 10.0]])  # (2 keys, d_v = 2)
QUERIES = np.array([[1.0, 0.0], [10.0, 0.0]])  # q, then 10 q
NEARLY_ONE_HOT = 0.999  # "almost exactly v1": the larger query gives k1 at least this share


claims = Claims("intuition.md")


@dataclass(frozen=True)
class Lookup:
    """One row of exercise 1's table: a query, its weights over the two keys, its output."""

    query: str
    weights: str
    output: str


def _lookups() -> list[Lookup]:
    output, weights = scaled_dot_product_attention(QUERIES, KEYS, VALUES)  # (2, 2), (2, 2)
    claims.require(greater(weights[0], 0, scale=1.0), less(weights[0, 0], weights[1, 0]),
                   sentence="a soft lookup mixes every value; the larger query's weights are closer to one-hot")
    claims.require(at_least(weights[1, 0], NEARLY_ONE_HOT), sentence="with the query ten times larger the output is almost "
                                                                     "exactly v1")
    return [Lookup(vector(q), vector(w, 4), vector(o)) for q, w, o in zip(QUERIES, weights, output, strict=True)]


def _weighted_average() -> None:
    example = worked_example()
    output, weights = self_attention(example.x, example.w_q, example.w_k, example.w_v)
    v = example.x @ example.w_v  # (2, 3)
    scale = float(np.abs(v).max())
    claims.require(at_least(weights, 0, scale=1.0), equal(weights.sum(axis=-1), 1), equal(output, weights @ v, scale=scale),
                   at_least(output, v.min(axis=0), scale=scale), at_most(output, v.max(axis=0), scale=scale),
                   sentence="the output is a weighted average of the values and lies inside their range")


@cache
def values(project: Project) -> dict[str, Any]:
    _weighted_average()
    return {"lookups": _lookups()}
