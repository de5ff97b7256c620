"""The values of the page “注意力实验台 / Attention playground”: the presets its JavaScript starts
from (`qkv_site.playground_presets`) and the limits the page's note states.

The limits the note quotes are the ones the playground enforces: the number of tokens and the
dimensions from `qkv_site.playground_presets` (the JavaScript reads them from the presets' JSON), the
largest cell from the JavaScript itself, and the length of the “it” → “animal” preset from
`qkv.examples`.

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> values(project)["max_tokens"], values(project)["max_dim"], values(project)["max_cell"], values(project)["animal_tokens"]
('6', '8', '1000', '12')
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from qkv.examples import it_animal_sentence
from qkv_site.playground_presets import MAX_DIM, MAX_PRESET_TOKENS, MAX_TOKENS, presets, presets_script
from qkv_site.project import Project
from qkv_site.values.claims import Claims

SCRIPT = Path("assets") / "javascripts" / "playground" / "playground.js"  # in the project's docs folder
_LIMIT = re.compile(r"^const LIMIT = (\d+);", re.MULTILINE)


def max_cell(script: str) -> int:
    """The largest absolute value the playground accepts in a cell (``const LIMIT`` of its script).

    >>> max_cell("const LIMIT = 50; // cells\\n")
    50
    >>> max_cell("let x = 1;")
    Traceback (most recent call last):
    ...
    ValueError: the playground's script has no "const LIMIT = <number>;": the page's note quotes it
    """
    match = _LIMIT.search(script)
    if match is None:
        raise ValueError('the playground\'s script has no "const LIMIT = <number>;": the page\'s note quotes it')
    return int(match.group(1))


@cache
def values(project: Project) -> dict[str, Any]:
    animal = len(it_animal_sentence().tokens)
    if not MAX_TOKENS < animal <= MAX_PRESET_TOKENS:
        raise ValueError(f"the 'it' → 'animal' preset has {animal} tokens: the page says it goes beyond the manual "
                         f"limit of {MAX_TOKENS} and the playground loads at most {MAX_PRESET_TOKENS}")
    exported = presets()["presets"]
    count = len(exported) if isinstance(exported, dict) else 0
    Claims("playground.md").require(count == 3, sentence=f"the three presets are exported from qkv.examples (there are {count})")
    return {"presets_script": presets_script(), "max_tokens": str(MAX_TOKENS), "max_dim": str(MAX_DIM),
            "max_cell": str(max_cell((project.docs_dir / SCRIPT).read_text(encoding="utf-8"))), "animal_tokens": str(animal)}
