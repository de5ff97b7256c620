"""How long the tests take, beside their targets: `pytest -m unit` within 1 minute, the whole suite from a fresh
clone within 6 minutes (on 2 cores).

Each time is the wall time of the README's test command (`python -m pytest`, on its two pytest-xdist workers), run
by this Python:

- the unit layer (`-m unit`) in this checkout, twice. Its figure tests check a copy of the figures the build keeps
  in `.cache/figures/` when those are current (after a build), and draw every figure themselves when they are not
  (after an edit of `qkv` or of a figure's code, or with no build yet): the script says which it was;
- the unit layer in a fresh clone of the last commit (no `.cache/`, so every figure is drawn);
- the whole suite in that clone, with CI=true as `.ci/run` runs it (a missing browser fails instead of skipping).

The clone imports its own code (its `src/` first on PYTHONPATH) and this environment's packages: it times the tests,
not `pip install`. The whole suite takes some 6 to 7 minutes; `--unit-only` leaves the clone out. `--quick` runs one
small test file in this checkout once, to check that the script works. The times are printed; `--output FILE` also
writes them as JSON (not into `results/`, whose files the site is built from).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, machine_info, run_main, verdict, write_results

from qkv_site.figures.stamp import up_to_date
from qkv_site.project import load_project

UNIT_TARGET = 60.0  # seconds: `pytest -m unit`
WHOLE_TARGET = 360.0  # seconds: the whole suite from a fresh clone, 2 cores
QUICK_FILE = "tests/qkv/test_softmax.py"


def _environment(checkout: Path, **extra: str) -> dict[str, str]:
    """This process's environment for a test run in ``checkout``: its own code first, no trace of a test run
    this script may itself be part of (pytest-xdist's worker variables)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(("PYTEST_", "PYTHONPATH"))}
    return env | {"PYTHONPATH": str(checkout / "src")} | extra


def timed_pytest(checkout: Path, *arguments: str, **extra_env: str) -> tuple[float, str]:
    """Run ``python -m pytest -q -p no:cacheprovider *arguments`` in ``checkout``; its wall seconds and last line.
    A run that fails stops the script: a time of a failing suite is no time of the suite."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments]
    started = time.perf_counter()
    result = subprocess.run(command, cwd=checkout, env=_environment(checkout, **extra_env), capture_output=True, text=True)
    seconds = time.perf_counter() - started
    last = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    if result.returncode != 0:
        raise SystemExit(f"pytest {' '.join(arguments)} failed in {checkout} ({last}):\n{result.stdout[-4000:]}{result.stderr[-2000:]}")
    return seconds, last


def figures_current(checkout: Path) -> bool:
    """Whether the build's figures in ``checkout``'s `.cache/` were drawn from its sources on this machine."""
    project = load_project(checkout / "mkdocs.yml")
    return up_to_date(project.cache_dir / "figures", project)


def fresh_clone(folder: Path) -> tuple[Path, str]:
    """A clone of this checkout's last commit (what CI checks out) in ``folder``, and that commit."""
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(folder)], check=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True, check=True).stdout.strip()
    return folder, commit


def line(what: str, seconds: float, target: float, detail: str) -> str:
    return f"{what}: {seconds:.1f} s, {seconds / target:.2f}× its target of {target:.0f} s, {verdict(seconds <= target)} ({detail})"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help=f"run {QUICK_FILE} once, in one process: checks that the script works")
    p.add_argument("--output", type=Path, help="also write the times as JSON to this file")
    p.add_argument("--unit-only", action="store_true", help="time the unit layer in this checkout only (no fresh clone, no whole suite)")
    args = p.parse_args(argv)
    print(f"target: pytest -m unit within {UNIT_TARGET:.0f} s")
    print(f"target: the whole suite from a fresh clone within {WHOLE_TARGET:.0f} s (2 cores)")
    bytecode = ("is set: pytest rewrites the asserts of every test module again in each worker, on every run"
                if os.environ.get("PYTHONDONTWRITEBYTECODE") else "is not set")
    print(f"this machine: {os.cpu_count()} CPUs; PYTHONDONTWRITEBYTECODE {bytecode}\n")
    results: dict = {"benchmark": "test_suite", "quick": args.quick,
                     "targets": {"unit_seconds": UNIT_TARGET, "whole_suite_seconds": WHOLE_TARGET}, "runs": []}
    if args.quick:
        seconds, last = timed_pytest(ROOT, "-n", "0", QUICK_FILE)
        print(f"{QUICK_FILE} alone, one process: {seconds:.1f} s ({last})")
        results["runs"].append({"what": QUICK_FILE, "seconds": round(seconds, 1)})
    else:
        for _ in range(2):
            current = figures_current(ROOT)
            seconds, last = timed_pytest(ROOT, "-m", "unit")
            state = "the build's figures current" if current else "the build's figures not current: every figure drawn"
            print(line("unit layer, this checkout", seconds, UNIT_TARGET, f"{state}; {last}"))
            results["runs"].append({"what": "unit, this checkout", "figures_current": current, "seconds": round(seconds, 1)})
        if not args.unit_only:
            with tempfile.TemporaryDirectory(prefix="qkv-test-suite-") as folder:
                clone, commit = fresh_clone(Path(folder) / "clone")
                results["commit"] = commit
                seconds, last = timed_pytest(clone, "-m", "unit")
                print(line(f"unit layer, fresh clone of {commit[:7]}", seconds, UNIT_TARGET, f"every figure drawn; {last}"))
                results["runs"].append({"what": "unit, fresh clone", "figures_current": False, "seconds": round(seconds, 1)})
                # A second fresh clone: the whole suite must not find what the unit run above left in the first.
                clone, _ = fresh_clone(Path(folder) / "whole")
                seconds, last = timed_pytest(clone, CI="true")
                print(line(f"whole suite, fresh clone of {commit[:7]}", seconds, WHOLE_TARGET, last))
                results["runs"].append({"what": "whole suite, fresh clone", "seconds": round(seconds, 1)})
    results["machine"] = machine_info(python_dont_write_bytecode=bool(os.environ.get("PYTHONDONTWRITEBYTECODE")))
    if args.output is not None:
        write_results(args.output, results)
    return 0


if __name__ == "__main__":
    run_main(main)
