"""The values of the home page: the size of the worked example its reading path describes.

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> values(project)["tokens"], values(project)["d_model"]
('2', '4')
"""

from __future__ import annotations

from functools import cache
from typing import Any

from qkv.examples import worked_example
from qkv_site.project import Project


@cache
def values(project: Project) -> dict[str, Any]:
    example = worked_example()
    tokens, d_model = example.x.shape  # (tokens, d_model)
    return {"tokens": str(tokens), "d_model": str(d_model)}
