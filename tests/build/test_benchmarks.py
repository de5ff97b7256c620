"""The benchmark scripts run (in --quick mode), print their targets and never touch the committed results.

This checks that the scripts work, not their numbers: those are in benchmarks/results/*.json.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from repository import ROOT

from qkv.tiled import DEFAULT_BLOCK_SIZE

BENCHMARKS = ROOT / "benchmarks"
RESULTS = BENCHMARKS / "results"
TARGETS = {
    "attention_speed": [
        "target: 2-D (n, 64): qkv within 1.15× of PyTorch's math path at every n from 512 to 4,096",
        "target: qkv.attention_output within 1.5× of PyTorch's fused kernel at (1, 8, n, 64)",
        "target: qkv.attention_output within 1.5× of PyTorch's fused kernel at the batch-heavy shape",
        "target: qkv.attention_output causal within 1.5× of PyTorch's causal kernel at (1, 8, n, 64)",
        "target: qkv.attention_output causal at most 0.7× its non-causal time at (1, 8, n, 64), n >= 2,048",
        "target: qkv.attention_output float16/float32 time no worse than PyTorch's float16/float32, same shapes",
        "qkv.attention_output (the output only, as PyTorch returns it) / PyTorch by layout, float32",
        "qkv.scaled_dot_product_attention (the output and the n×n weights) / PyTorch by layout, float32",
        "attention_output's path: 2-D: key blocks;",
        "(1, 8, n, d) large scores: row maximum;",
        "tiled_attention by block_size",
        f"tiled default block_size {DEFAULT_BLOCK_SIZE}",
    ],
    "attention_memory": [
        "target: tiled peak under 5% of naive at n = 16,384",
        "target: ordinary peak at most 1.5× one n×n float32 matrix at every n from 512 on",
    ],
    "site_build": [
        "target: first build on a new machine (empty font cache, no build cache) under 30 s",
        "target: cold full build under 30 s",
        "target: cached rebuild (nothing changed) under 3 s",
        "target: mkdocs serve: from saving an edited page to serving it under 3 s",
        "target: every page read to its end in Chromium within its target",
    ],
}
# test_suite.py prints its times only (it keeps no results in results/)
SUITE_TARGETS = [
    "target: pytest -m unit within 60 s",
    "target: the whole suite from a fresh clone within 360 s (2 cores)",
]


def run_quick(name: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(BENCHMARKS / f"{name}.py"), "--quick", *arguments]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


def committed_results() -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in RESULTS.glob("*.json")}


@pytest.mark.parametrize("name", ["attention_speed", "attention_memory"])
def test_attention_benchmarks_run_quick_and_print_their_targets(name: str, tmp_path: Path) -> None:
    before = committed_results()
    output = tmp_path / f"{name}.json"
    result = run_quick(name, "--output", str(output))
    assert result.returncode == 0, result.stderr[-3000:]
    for target in TARGETS[name]:
        assert target in result.stdout, result.stdout
    assert "PASS" in result.stdout or "MISS" in result.stdout
    results = json.loads(output.read_text(encoding="utf-8"))
    assert results["quick"] is True and results["results"] and results["machine"]["cpu_model"] is not None
    assert committed_results() == before


def test_the_profile_runs_quick_and_times_every_step() -> None:
    result = run_quick("attention_profile")
    assert result.returncode == 0, result.stderr[-3000:]
    for step in ("q·kᵀ", "exp", "row sums", "·v", "add the partial output", "divide", "qkv / PyTorch = "):
        assert step in result.stdout, result.stdout


def test_the_test_suite_timer_runs_quick_and_prints_its_targets() -> None:
    before = committed_results()
    result = run_quick("test_suite")
    assert result.returncode == 0, result.stderr[-3000:]
    for target in SUITE_TARGETS:
        assert target in result.stdout, result.stdout
    assert re.search(r"tests/qkv/test_softmax\.py alone, one process: [\d.]+ s \(\d+ passed", result.stdout), result.stdout
    assert committed_results() == before


def test_quick_mode_saves_nothing_without_output() -> None:
    before = committed_results()
    result = run_quick("attention_memory")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "results not saved" in result.stdout
    assert committed_results() == before


@pytest.mark.browser  # the script loads the page in Chromium to count what a reader's browser requests
def test_site_build_quick_measures_the_built_page(site: Path, tmp_path: Path) -> None:
    # Uses the session's strict build (shared with the other site tests): no extra build here.
    before = committed_results()
    output = tmp_path / "site_build.json"
    result = run_quick("site_build", "--site-dir", str(site), "--output", str(output))
    assert result.returncode == 0, result.stderr[-3000:]
    for target in TARGETS["site_build"]:
        assert target in result.stdout, result.stdout
    assert "warning: the page refers to a file the site does not have" not in result.stdout
    results = json.loads(output.read_text(encoding="utf-8"))
    for lang in ("zh", "en"):
        categories = results["page_bytes"][lang]["categories"]
        assert {"html", "css", "js", "search", "images"} <= set(categories), categories
        assert not any("mathjax" in category for category in categories), categories
        assert any(path.endswith(".svg") for path in categories["images"]["paths"])
        assert results["page_bytes"][lang]["total_gzip_bytes"] < results["page_bytes"][lang]["total_raw_bytes"]
        for source in ("worked-example.md", "learned-attention.md"):  # what --quick loads in Chromium
            page = results["pages"][lang][source]
            assert page["categories"]["html"] > 0 and page["categories"]["js"] > 0, page
            assert page["gzip_bytes"] == sum(page["files"].values()) and page["budget_bytes"] >= page["target_bytes"] > 0, page
        # the learned widgets draw their first state from the page: a reader who only reads fetches no model
        assert results["pages"][lang]["learned-attention.md"]["categories"]["data"] == 0
    assert committed_results() == before


def test_committed_results_exist_and_were_measured_in_full_mode() -> None:
    for name in TARGETS:
        results = json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))
        assert results["quick"] is False, name
        machine = results["machine"]
        assert machine["cpu_model"] and machine["usable_cpus"] and machine["numpy"] and machine["date"]
        assert machine["shared_machine"] is True
