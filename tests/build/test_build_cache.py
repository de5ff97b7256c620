"""The build cache reuses a result only while everything it was computed from is unchanged, the machine's
arithmetic included: a `.cache/` carried to another CPU or BLAS kernel is not reused."""

from __future__ import annotations

import builtins
import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from perturbed_numerics import another_machine
from repository import ROOT

from qkv_site.builder import compat
from qkv_site.builder.block_cache import BlockCache, inputs_digest
from qkv_site.builder.block_runs import BlockRunner
from qkv_site.cache_files import numerics_fingerprint
from qkv_site.figures import stamp
from qkv_site.figures.stamp import source_digest
from qkv_site.project import Project, load_project


def _copy_sources(tmp_path: Path) -> dict[str, dict[str, Path]]:
    """A copy of qkv and qkv_site: the packages as `inputs_digest` reads them, and as `stamp.source_digest` does."""
    src = tmp_path / "src"
    for package in ("qkv", "qkv_site"):
        shutil.copytree(ROOT / "src" / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    return {"inputs": {"qkv": src / "qkv", "qkv_site": src / "qkv_site"},
            "figures": {"qkv": src / "qkv", "qkv_site.figures": src / "qkv_site" / "figures"}}


def test_a_change_to_qkv_changes_every_cache_key(tmp_path: Path, project: Project) -> None:
    copy = _copy_sources(tmp_path)
    before = inputs_digest(project, copy["inputs"]), stamp.source_digest(project, copy["figures"])
    softmax = copy["inputs"]["qkv"] / "softmax.py"
    softmax.write_text(softmax.read_text(encoding="utf-8") + "\n# one more line\n", encoding="utf-8")
    after = inputs_digest(project, copy["inputs"]), stamp.source_digest(project, copy["figures"])
    assert after[0] != before[0]  # every code-block output and notebook is recomputed
    assert after[1] != before[1]  # every figure is redrawn
    key = dict(page="zh/a.md", session=None, earlier=[], code="print(1)", options={})
    assert BlockCache(tmp_path, after[0]).key(**key) != BlockCache(tmp_path, before[0]).key(**key)


def test_new_benchmark_results_change_the_digests(tmp_path: Path, project: Project) -> None:
    results = tmp_path / "results"
    shutil.copytree(project.results_dir, results)
    copied = dataclasses.replace(project, results_dir=results)
    before = inputs_digest(copied), stamp.source_digest(copied)
    assert before == (inputs_digest(project), stamp.source_digest(project))  # the same files, the same digests
    (results / "attention_speed.json").write_text("{}", encoding="utf-8")
    after = inputs_digest(copied), stamp.source_digest(copied)
    assert after[0] != before[0] and after[1] != before[1]


def test_the_digests_hash_the_results_of_the_configuration_they_are_given(tmp_path: Path, project: Project) -> None:
    # A configuration in another folder, with the plugin's results_dir: its digests are of its own results.
    (tmp_path / "docs").mkdir()
    (tmp_path / "measured").mkdir()
    shutil.copy(project.results_dir / "attention_speed.json", tmp_path / "measured" / "attention_speed.json")
    (tmp_path / "mkdocs.yml").write_text("site_name: elsewhere\nplugins:\n  - qkv-site:\n      results_dir: measured\n",
                                         encoding="utf-8")
    elsewhere = load_project(tmp_path / "mkdocs.yml")
    assert elsewhere.results_dir == (tmp_path / "measured").resolve() and elsewhere.root == tmp_path.resolve()
    before = inputs_digest(elsewhere), stamp.source_digest(elsewhere)
    assert before[0] != inputs_digest(project) and before[1] != stamp.source_digest(project)  # one result file, not all
    speed = tmp_path / "measured" / "attention_speed.json"
    speed.write_text(speed.read_text(encoding="utf-8").replace('"median_s": ', '"median_s": 1', 1), encoding="utf-8")
    assert inputs_digest(elsewhere) != before[0] and stamp.source_digest(elsewhere) != before[1]


def test_a_change_to_the_build_plugin_changes_the_digest(tmp_path: Path, project: Project) -> None:
    copy = _copy_sources(tmp_path)
    before = inputs_digest(project, copy["inputs"])
    notebooks = copy["inputs"]["qkv_site"] / "builder" / "notebooks.py"  # e.g. how a notebook's printed output is merged
    notebooks.write_text(notebooks.read_text(encoding="utf-8") + "\n# one more line\n", encoding="utf-8")
    assert inputs_digest(project, copy["inputs"]) != before  # executed notebooks and block outputs are not reused


class KeyedRunner(BlockRunner):
    digest = "first"  # what inputs_digest would be: a test changes it as an edit to src/qkv would


@pytest.fixture
def runner(tmp_path, monkeypatch, project) -> KeyedRunner:
    """The plugin's block runner with its cache in tmp_path, keyed by a digest the test sets
    (``runner.digest``), running blocks with markdown-exec's own function."""
    caches: dict[str, BlockCache] = {}
    blocks = KeyedRunner(compat.MARKDOWN_EXEC_RUN.resolve(), tmp_path / "blocks", project,
                         cache=lambda folder, project: caches.setdefault(blocks.digest, BlockCache(folder, blocks.digest)))
    monkeypatch.setattr(builtins, "qkv_runs", [], raising=False)
    return blocks


def _render_page(runner: BlockRunner, blocks: list[str]) -> list[str]:
    """What a page's blocks print, in order, as markdown-exec would run them (one session)."""
    runner.start_page("zh/page.md")
    compat.MARKDOWN_EXEC_SESSIONS.resolve().clear()
    return [runner(code, session="s") for code in blocks]


COUNTED = "import builtins; builtins.qkv_runs.append({n})\n"


def test_blocks_run_once_then_come_from_the_cache_until_their_inputs_change(runner):
    page = [COUNTED.format(n=1) + "x = 41", COUNTED.format(n=2) + "print(x + 1)"]
    assert _render_page(runner, page) == ["", "42\n"]
    assert builtins.qkv_runs == [1, 2]

    assert _render_page(runner, page) == ["", "42\n"]  # nothing ran
    assert builtins.qkv_runs == [1, 2]

    # An edited block runs, after the earlier block of its session (cached) is run again for its x.
    edited = [page[0], COUNTED.format(n=3) + "print(x + 2)"]
    assert _render_page(runner, edited) == ["", "43\n"]
    assert builtins.qkv_runs == [1, 2, 1, 3]

    runner.digest = "qkv changed"  # as inputs_digest after an edit to src/qkv
    assert _render_page(runner, page) == ["", "42\n"]
    assert builtins.qkv_runs == [1, 2, 1, 3, 1, 2]


def test_a_failing_block_is_not_cached(runner):
    from markdown_exec._internal.formatters.base import ExecutionError

    for _ in range(2):
        with pytest.raises(ExecutionError):
            _render_page(runner, [COUNTED.format(n=9) + "1 / 0"])
    assert builtins.qkv_runs == [9, 9]


# Keyed by the machine's arithmetic (qkv_site.cache_files.numerics_fingerprint) --------------------


def _in_a_process(env: dict[str, str]) -> str:
    code = ("from qkv_site.project import load_project; from qkv_site.builder.block_cache import inputs_digest;"
            "from qkv_site.figures.stamp import source_digest; from qkv_site.cache_files import numerics_fingerprint;"
            "p = load_project('mkdocs.yml'); print(numerics_fingerprint()); print(inputs_digest(p)); print(source_digest(p))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **env}, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_fingerprint_names_the_blas_kernel_and_the_simd_numpy_uses() -> None:
    fingerprint = numerics_fingerprint()
    assert "numpy" in fingerprint and "simd" in fingerprint and "blas openblas" in fingerprint, fingerprint


def _other_machines() -> list[dict[str, str]]:
    """Another BLAS kernel alone, then numpy's SIMD level as well (when this machine dispatches beyond the baseline)."""
    machine = another_machine()
    return [{"OPENBLAS_CORETYPE": machine["OPENBLAS_CORETYPE"]}, *([machine] if len(machine) > 1 else [])]


def test_another_blas_kernel_or_simd_level_changes_every_cache_key(project: Project) -> None:
    here = _in_a_process({})
    assert here.splitlines() == [numerics_fingerprint(), inputs_digest(project), source_digest(project)]
    for env in _other_machines():
        there = _in_a_process(env)
        changed = [a != b for a, b in zip(here.splitlines(), there.splitlines(), strict=True)]
        assert all(changed), f"{env}: a cache key did not change:\n{here}\n{there}"
