"""The playground's JavaScript math, run with node's built-in test runner (tests/js/)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from conftest import ROOT


def test_node_tests_of_the_playground_math_pass() -> None:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is not on PATH; CI must run the JavaScript tests")
        pytest.skip("node is not on PATH: the playground's JavaScript tests (node --test tests/js/) cannot run")
    result = subprocess.run([node, "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"node --test tests/js/ failed:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}"
    assert "# fail 0" in result.stdout and "# pass 0" not in result.stdout, result.stdout[-2000:]
