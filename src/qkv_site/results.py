"""The committed benchmark results (the project's ``results_dir``, benchmarks/results/*.json) that the
measurement figures, the beyond page and the learned-attention page draw from.

They are produced by the scripts in benchmarks/ and committed, so that a site build draws the same
figures everywhere. `stamp.source_digest` hashes these files: new results redraw the figures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from qkv_site.project import Project


def result_files(project: Project) -> list[Path]:
    """Every committed result file of ``project``, in a stable order."""
    return sorted(project.results_dir.glob("*.json"))


def load(project: Project, name: str) -> dict[str, Any]:
    """``<results_dir>/{name}.json``; a missing file fails the build with the command that makes it."""
    path = project.results_dir / f"{name}.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing; run `python benchmarks/{name}.py` (full mode) to produce it")
    results: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return results


def series(results: dict[str, Any], implementation: str, key: str = "median_s") -> tuple[list[int], list[float]]:
    """(n, value) of one implementation in attention_speed's results, sorted by n."""
    rows = sorted((row["n"], row[key]) for row in results["results"] if row["implementation"] == implementation)
    return [n for n, _ in rows], [value for _, value in rows]


def repeats(results: dict[str, Any]) -> dict[str, int]:
    """How many timed samples each implementation's medians in attention_speed's results are of.

    The slow pure-Python loop may be timed fewer times than the rest; an implementation timed a
    different number of times at different n has no one count to print, and is an error.
    """
    counts: dict[str, set[int]] = {}
    for row in results["results"]:
        counts.setdefault(row["implementation"], set()).add(len(row["samples_s"]))
    uneven = {name: sorted(found) for name, found in counts.items() if len(found) != 1}
    if uneven:
        raise ValueError(f"attention_speed: an implementation was timed a different number of times at different n: {uneven}")
    return {name: found.pop() for name, found in counts.items()}
