"""The built site's copy of Material's search worker, corrected (`qkv_site.builder.compat.WORKER_CORRECTIONS`).

Material's search worker cuts a Chinese query into the words of the index, turns the query into lunr's
and lists the results; a few pieces of its minified code are replaced in the built site's copy, each
named with its reason in `qkv_site.builder.compat`, which also checks at start-up that the installed
Material holds each piece exactly once. Nothing else in the worker changes.
"""

from __future__ import annotations

from pathlib import Path

from qkv_site.builder.compat import MATERIAL_WORKER, WORKER_CORRECTIONS, MaterialChanged, worker_problems


def corrected(source: str, where: str = "Material's search worker") -> str:
    """The worker's code with every correction made; each piece it replaces must occur exactly once."""
    problems = worker_problems(source, where)
    if problems:
        raise MaterialChanged("; ".join(problems))
    for correction in WORKER_CORRECTIONS:
        source = source.replace(correction.wrong, correction.right)
    return source


def correct_worker(site_dir: Path) -> Path:
    """Correct the built site's copy of the worker (copied there from the theme); returns its path."""
    path = Path(site_dir) / MATERIAL_WORKER
    if not path.is_file():
        raise MaterialChanged(f"the built site has no search worker at {path}")
    source = path.read_text(encoding="utf-8")
    if all(correction.right in source and correction.wrong not in source for correction in WORKER_CORRECTIONS):
        return path  # already corrected (mkdocs serve rebuilds into the same folder)
    path.write_text(corrected(source, str(path)), encoding="utf-8")
    return path
