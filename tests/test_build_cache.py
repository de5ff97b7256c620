"""The build cache reuses a result only while everything it was computed from is unchanged."""

from __future__ import annotations

import builtins
import shutil
from pathlib import Path

import pytest

from qkv_site.build import compat
from qkv_site.build.block_runs import BlockRunner
from qkv_site.build_cache import BlockCache, inputs_digest
from qkv_site.figures import stamp

ROOT = Path(__file__).resolve().parent.parent


def _copy_sources(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    for package in ("qkv", "qkv_site"):
        shutil.copytree(ROOT / "src" / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    return src


def test_a_change_to_qkv_changes_every_cache_key(tmp_path):
    src = _copy_sources(tmp_path)
    results = ROOT / "benchmarks" / "results"
    before = inputs_digest(src, results), stamp.source_digest(src)
    softmax = src / "qkv" / "softmax.py"
    softmax.write_text(softmax.read_text(encoding="utf-8") + "\n# one more line\n", encoding="utf-8")
    after = inputs_digest(src, results), stamp.source_digest(src)
    assert after[0] != before[0]  # every code-block output and notebook is recomputed
    assert after[1] != before[1]  # every figure is redrawn
    key = dict(page="zh/a.md", session=None, earlier=[], code="print(1)", options={})
    assert BlockCache(tmp_path, after[0]).key(**key) != BlockCache(tmp_path, before[0]).key(**key)


def test_new_benchmark_results_change_the_digests(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(ROOT / "benchmarks" / "results", results)
    before = inputs_digest(results=results), stamp.source_digest(result_files=sorted(results.glob("*.json")))
    (results / "attention_speed.json").write_text("{}", encoding="utf-8")
    after = inputs_digest(results=results), stamp.source_digest(result_files=sorted(results.glob("*.json")))
    assert after[0] != before[0] and after[1] != before[1]


def test_a_change_to_the_build_plugin_changes_the_digest(tmp_path):
    src = _copy_sources(tmp_path)
    results = ROOT / "benchmarks" / "results"
    before = inputs_digest(src, results)
    notebooks = src / "qkv_site" / "build" / "notebooks.py"  # e.g. how a notebook's printed output is merged
    notebooks.write_text(notebooks.read_text(encoding="utf-8") + "\n# one more line\n", encoding="utf-8")
    assert inputs_digest(src, results) != before  # executed notebooks and block outputs are not reused


class KeyedRunner(BlockRunner):
    digest = "first"  # what inputs_digest would be: a test changes it as an edit to src/qkv would


@pytest.fixture
def runner(tmp_path, monkeypatch) -> KeyedRunner:
    """The plugin's block runner with its cache in tmp_path, keyed by a digest the test sets
    (``runner.digest``), running blocks with markdown-exec's own function."""
    caches: dict[str, BlockCache] = {}
    blocks = KeyedRunner(compat.MARKDOWN_EXEC_RUN.resolve(), tmp_path / "blocks",
                         cache=lambda folder: caches.setdefault(blocks.digest, BlockCache(folder, blocks.digest)))
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
