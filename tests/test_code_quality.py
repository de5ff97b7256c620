"""The code passes its linters: ruff (configured in pyproject.toml) and mypy --strict, both pinned in the test set,
over all of src/ (qkv and the site's qkv_site) and the programs the pages show (docs_src/); ruff's pyflakes rules
(unused or undefined names, a name defined twice) over tests/ too."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("tool", ["ruff", "mypy"])
def test_the_linters_are_installed(tool: str) -> None:
    result = run(tool, "--version")
    assert result.returncode == 0, f"{tool} is missing: pip install -c constraints.txt -e '.[test]'\n{result.stderr}"


def test_ruff_finds_nothing_in_the_code() -> None:
    result = run("ruff", "check", "--no-cache", "src", "docs_src")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_finds_no_unused_or_undefined_name_in_the_tests() -> None:
    result = run("ruff", "check", "--no-cache", "--select", "F", "tests")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_finds_nothing_in_the_code() -> None:
    result = run("mypy", "--strict", "src")  # incremental (.mypy_cache/): a rerun takes seconds
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout
