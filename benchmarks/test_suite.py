"""How long the tests take, beside their targets: `pytest -m unit` within 1 minute, the whole suite from a fresh
clone within 6 minutes (on 2 cores).

Each time is the wall time of the README's test command (`python -m pytest`, here with `-q -p no:cacheprovider`,
on its two pytest-xdist workers), run by this Python:

- the unit layer (`-m unit`) in this checkout, twice (two samples of one state: a unit run leaves `.cache/` as it
  found it). Its figure tests check a copy of the figures the build keeps in `.cache/figures/` when those are
  current (after a build), and draw every figure themselves when they are not (after an edit of `qkv` or of a
  figure's code, or with no build yet): the script says which it was;
- the unit layer in a fresh clone of the last commit (no `.cache/`, so every figure is drawn);
- the whole suite in a second fresh clone of that commit (so that it finds nothing the unit run left), with
  CI=true as in CI, where a missing Chromium or poppler fails the run instead of skipping its tests.

A clone imports its own code (its `src/` first on PYTHONPATH; a module missing from the commit would still be found
in this checkout's editable install) and this environment's packages: the script times the tests, not `pip
install`. Variables that change what the tests do (`QKV_*`, `CI`, every `PYTEST_*`) are not passed on, but for
the whole suite's CI=true. All of it takes about 10 minutes; `--unit-only` leaves the clones out. `--quick` runs
one small test file in this checkout once, to check that the script works. The times are printed; `--output FILE`
also writes them as JSON, outside `results/` (the site and its figures are built from every file there).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import RESULTS, ROOT, machine_info, run_main, verdict, write_results

from qkv_site.figures.stamp import up_to_date
from qkv_site.project import load_project

UNIT_TARGET = 60.0  # seconds: `pytest -m unit`
WHOLE_TARGET = 360.0  # seconds: the whole suite from a fresh clone, 2 cores
QUICK_FILE = "tests/qkv/test_softmax.py"
TIMEOUT = 3600  # seconds: a run that hangs stops the script


class TestsFailed(Exception):
    """A timed run did not pass: its time is no time of the suite."""


def _environment(checkout: Path, **extra: str) -> dict[str, str]:
    """This process's environment for a test run in ``checkout``: its own code first, and none of the variables
    that change what the tests do (``QKV_*``, ``CI``, every ``PYTEST_*``, pytest-xdist's among them), then ``extra``."""
    kept = {name: value for name, value in os.environ.items()
            if not name.startswith(("PYTEST_", "QKV_")) and name not in {"CI", "PYTHONPATH"}}
    return kept | {"PYTHONPATH": str(checkout / "src")} | extra


def timed_pytest(checkout: Path, *arguments: str, **extra_env: str) -> tuple[float, str]:
    """Run ``python -m pytest -q -p no:cacheprovider *arguments`` in ``checkout``; its wall seconds and last line."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments]
    started = time.perf_counter()
    result = subprocess.run(command, cwd=checkout, env=_environment(checkout, **extra_env), capture_output=True, text=True,
                            timeout=TIMEOUT)
    seconds = time.perf_counter() - started
    last = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    if result.returncode != 0:
        raise TestsFailed(f"pytest {' '.join(arguments)} failed in {checkout} ({last}):\n{result.stdout[-4000:]}{result.stderr[-2000:]}")
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


def time_runs(results: dict[str, Any], quick: bool, unit_only: bool) -> None:
    """Run and print the timed test runs, adding each to ``results["runs"]`` as it finishes."""
    if quick:
        seconds, last = timed_pytest(ROOT, "-n", "0", QUICK_FILE)
        print(f"{QUICK_FILE} alone, one process: {seconds:.1f} s ({last})")
        results["runs"].append({"what": QUICK_FILE, "seconds": round(seconds, 1)})
        return
    for _ in range(2):
        current = figures_current(ROOT)
        seconds, last = timed_pytest(ROOT, "-m", "unit")
        state = "the build's figures current" if current else "the build's figures not current: every figure drawn"
        print(line("unit layer, this checkout", seconds, UNIT_TARGET, f"{state}; {last}"))
        results["runs"].append({"what": "unit, this checkout", "figures_current": current, "seconds": round(seconds, 1)})
    if unit_only:
        return
    with tempfile.TemporaryDirectory(prefix="qkv-test-suite-") as folder:
        clone, commit = fresh_clone(Path(folder) / "unit")
        seconds, last = timed_pytest(clone, "-m", "unit")
        print(line(f"unit layer, fresh clone of {commit[:7]}", seconds, UNIT_TARGET, f"every figure drawn; {last}"))
        results["runs"].append({"what": "unit, fresh clone", "commit": commit, "figures_current": False, "seconds": round(seconds, 1)})
        clone, commit = fresh_clone(Path(folder) / "whole")
        seconds, last = timed_pytest(clone, CI="true")
        print(line(f"whole suite, fresh clone of {commit[:7]}", seconds, WHOLE_TARGET, last))
        results["runs"].append({"what": "whole suite, fresh clone", "commit": commit, "seconds": round(seconds, 1)})


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help=f"run {QUICK_FILE} once, in one process: checks that the script works")
    p.add_argument("--output", type=Path, help="also write the times as JSON to this file (not in benchmarks/results/)")
    p.add_argument("--unit-only", action="store_true", help="time the unit layer in this checkout only (no fresh clone, no whole suite)")
    args = p.parse_args(argv)
    if args.output is not None and args.output.resolve().is_relative_to(RESULTS.resolve()):
        p.error(f"--output {args.output}: the site and its figures are built from every file of {RESULTS}; write it elsewhere")
    cores = len(os.sched_getaffinity(0))
    bytecode = ("is set: pytest rewrites the asserts of every test module again in each worker, on every run"
                if os.environ.get("PYTHONDONTWRITEBYTECODE") else "is not set")
    print(f"target: pytest -m unit within {UNIT_TARGET:.0f} s")
    print(f"target: the whole suite from a fresh clone within {WHOLE_TARGET:.0f} s (2 cores)")
    print(f"this machine: {cores} usable cores; PYTHONDONTWRITEBYTECODE {bytecode}\n")
    results: dict[str, Any] = {"benchmark": "test_suite", "quick": args.quick,
                               "targets": {"unit_seconds": UNIT_TARGET, "whole_suite_seconds": WHOLE_TARGET}, "runs": []}
    results["machine"] = machine_info(python_dont_write_bytecode=bool(os.environ.get("PYTHONDONTWRITEBYTECODE")))
    failed = None
    try:
        time_runs(results, args.quick, args.unit_only)
    except TestsFailed as error:
        failed = str(error)
        results["failed"] = failed.splitlines()[0]
    if args.output is not None:
        write_results(args.output, results)  # the runs that finished, also when one failed
    if failed:
        print(failed, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    run_main(main)
