"""The committed learned-attention results, read (never trained) by the pages and figures that show them.

`benchmarks/learned_attention.py` trains every run of `qkv.learning.runs.RUNS` over ten seeds once and
writes `benchmarks/results/learned_attention.json` (a record per run and seed, the findings counted
over seeds and OpenBLAS kernels, the machine) and the shown seed's two models,
`learned_model_coreference.json` and `learned_model_referent.json`. A site build only reads them, so
the page prints the same numbers on every machine; `tests/qkv/test_learning_results.py` retrains the shown
seed and checks the findings the results call robust.

>>> from qkv_site.project import load_project
>>> runs = LearnedResults(load_project("mkdocs.yml"))
>>> runs.seeds, runs.finding("baseline_learns")["robust"]
([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], True)
"""

from __future__ import annotations

import statistics
from functools import cache, cached_property
from typing import Any

from qkv.learning import CoreferenceModel, load_model
from qkv_site.project import Project
from qkv_site.results import load

RESULTS = "learned_attention"  # benchmarks/results/learned_attention.json


class LearnedResults:
    """The results file of one project, with the lookups the page, its figures and the notes share."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.data = load(project, RESULTS)

    @cached_property
    def seeds(self) -> list[int]:
        return [int(seed) for seed in self.data["seeds"]]

    @property
    def shown_seed(self) -> int:
        return int(self.data["shown_seed"])

    def records(self, run: str) -> list[dict[str, Any]]:
        """The record of `run` in every seed, in seed order (a missing run names the runs there are)."""
        if run not in self.data["records"]:
            raise KeyError(f"{RESULTS}.json has no run {run!r}; its runs are {list(self.data['records'])}")
        by_seed = self.data["records"][run]
        return [by_seed[str(seed)] for seed in self.seeds]

    def shown(self, run: str) -> dict[str, Any]:
        """The record of `run` in the seed whose models are committed and drawn."""
        record: dict[str, Any] = self.records(run)[self.seeds.index(self.shown_seed)]
        return record

    def values(self, run: str, key: str) -> list[Any]:
        """`record[key]` of `run` in every seed (None where a seed diverged)."""
        return [record.get(key) for record in self.records(run)]

    def options(self, run: str) -> dict[str, Any]:
        """The options run `run` was trained with (every option resolved)."""
        return dict(self.data["runs"][run]["resolved"])

    def finding(self, key: str) -> dict[str, Any]:
        """One finding of `qkv.learning.findings` as the results counted it."""
        for found in self.data["findings"]:
            if found["key"] == key:
                return {str(k): v for k, v in found.items()}
        raise KeyError(f"{RESULTS}.json has no finding {key!r}; run benchmarks/learned_attention.py again")

    def holds_in(self, key: str) -> list[int]:
        """How many seeds a finding holds in, on the results' kernel and on each other kernel tried (sorted, distinct)."""
        found = self.finding(key)
        counts = {len(found["holds_in"])} | {len(other["holds_in"]) for other in found.get("other_kernels", {}).values()}
        return sorted(counts)

    @property
    def kernels(self) -> list[str]:
        """The OpenBLAS kernels the findings were counted on, the results' own first."""
        first = self.data["machine"]["numpy_blas"]["core"]
        others = {k for found in self.data["findings"] for k in found.get("other_kernels", {})}
        return [first, *sorted(others)]


@cache
def results(project: Project) -> LearnedResults:
    """The committed results of `project` (read once per process)."""
    return LearnedResults(project)


@cache
def shown_model(project: Project, task: str) -> CoreferenceModel:
    """The committed model of `task` ("coreference" or "referent"), the results' shown seed; no history."""
    path = project.results_dir / f"learned_model_{task}.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing; run `python benchmarks/learned_attention.py` to produce it")
    return load_model(path)


def median(values: list[float]) -> float:
    """The median of the seeds' values (None, a diverged seed, refused)."""
    if any(v is None for v in values):
        raise ValueError(f"a seed has no value (diverged?): {values}")
    return float(statistics.median(values))
