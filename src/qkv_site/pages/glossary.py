"""The rows of the page “术语表 / Glossary”: the terms of `qkv_site.glossary`, the same list the tooltips use.

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> values(project)["terms"][0].text
'Query'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from qkv_site.glossary import TERMS
from qkv_site.project import Project


@cache
def values(project: Project) -> dict[str, Any]:
    if not TERMS:
        raise ValueError("qkv_site.glossary.TERMS is empty: the glossary page would show a table without rows")
    return {"terms": list(TERMS)}
