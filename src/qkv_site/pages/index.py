"""The values of the home page: the size of the worked example its reading path describes.

>>> values()["tokens"], values()["d_model"]
('2', '4')
"""

from __future__ import annotations

from functools import cache
from typing import Any

from qkv.examples import worked_example


@cache
def values() -> dict[str, Any]:
    example = worked_example()
    tokens, d_model = example.x.shape  # (tokens, d_model)
    return {"tokens": str(tokens), "d_model": str(d_model)}
