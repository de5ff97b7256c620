"""The numbers of the page “总结：五步计算流程 / Summary: the five steps of self-attention”.

Exercise 1 gives the shape each step produces; exercise 2 changes the input of “love” and lists,
for each matrix, the rows that change. What the prose says of them (steps 2 to 4 are n × n, steps
1 and 5 one row per token; Q, K and V change only in the row of “love”, and from step 2 on the
change reaches “I”) is checked here.

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> values(project)["shapes"]["scores"], values(project)["changed"]["q"]
('6 \\\\times 6', ['love'])
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from qkv import attention_scores, project, scaled_dot_product_attention, softmax
from qkv.examples import worked_example
from qkv_site.project import Project
from qkv_site.values.claims import Claims, equal

N, D_MODEL, D_K = 6, 512, 64  # exercise 1 (d_v = d_k)
CHANGED_LOVE = [1, 1, 0, 0]  # exercise 2: the new input vector of "love"


claims = Claims("summary-flow.md")


def _shape(array: np.ndarray) -> str:
    return r" \times ".join(map(str, array.shape))


def _shapes() -> dict[str, str]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, D_MODEL))
    w_q, w_k, w_v = rng.standard_normal((3, D_MODEL, D_K)) / np.sqrt(D_MODEL)
    q, k, v = project(x, w_q), project(x, w_k), project(x, w_v)
    scores = attention_scores(q, k, scale=1.0)
    scaled = attention_scores(q, k)
    weights = softmax(scaled)
    output, _ = scaled_dot_product_attention(q, k, v)
    results = {"q": q, "k": k, "v": v, "scores": scores, "scaled": scaled, "weights": weights, "output": output}
    claims.require(all(results[name].shape == (N, N) for name in ("scores", "scaled", "weights")),
                   all(results[name].shape[0] == N for name in ("q", "k", "v", "output")),
                   sentence="steps 2 to 4 give n x n square matrices; steps 1 and 5 give one row per token")
    return {name: _shape(result) for name, result in results.items()}


def _changed() -> dict[str, list[str]]:
    example = worked_example()
    changed = worked_example(x=[example.x[0], CHANGED_LOVE])
    rows = {}
    for name in ("q", "k", "v", "scores", "weights", "output"):
        before, after = getattr(example, name), getattr(changed, name)
        rows[name] = [token for i, token in enumerate(example.tokens) if not equal(before[i], after[i], scale=1.0)]
    claims.require(all(rows[name] == ["love"] for name in ("q", "k", "v")),
                   all(rows[name] == list(example.tokens) for name in ("scores", "weights", "output")),
                   sentence="in Q, K and V only the row of love changes; from step 2 on the change reaches the row of I")
    return rows


@cache
def values(project: Project) -> dict[str, Any]:
    return {"shapes": _shapes(), "changed": _changed()}
