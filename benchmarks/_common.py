"""What every benchmark script shares: the machine description, the command line, writing the results."""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import platform
import statistics
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
SHARED_NOTE = (
    "shared machine: other people's builds and tests may have run at the same time, "
    "so timings are noisy (see load_average); memory numbers are not affected"
)


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def _openblas_call(symbol_suffix: str) -> Any:
    """Ask the OpenBLAS numpy loaded (what threadpoolctl does), e.g. its thread count; None if unknown."""
    try:
        libraries = {line.split()[-1] for line in Path("/proc/self/maps").read_text().splitlines() if "openblas" in line.lower()}
    except OSError:
        return None
    for library in sorted(libraries):
        handle = ctypes.CDLL(library)
        for prefix in ("scipy_openblas_", "openblas_"):
            for suffix in ("64_", ""):
                function = getattr(handle, f"{prefix}{symbol_suffix}{suffix}", None)
                if function is not None:
                    if symbol_suffix != "get_num_threads":
                        function.restype = ctypes.c_char_p
                        return function().decode()
                    return int(function())
    return None


def numpy_blas() -> dict[str, Any]:
    """numpy's BLAS: name, version, build configuration, and the threads and kernel it uses right now."""
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    except Exception:  # older numpy: no dict mode
        blas = {}
    return {
        "name": blas.get("name"),
        "version": blas.get("version"),
        "configuration": blas.get("openblas configuration"),
        "threads": _openblas_call("get_num_threads"),
        "core": _openblas_call("get_corename"),
    }


def machine_info(**extra: Any) -> dict[str, Any]:
    """Where and when the numbers were measured."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    environment = ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    return {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "cpu_model": _cpu_model(),
        "logical_cpus": os.cpu_count(),
        "usable_cpus": usable,
        "memory_gib": _memory_gib(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numpy_blas": numpy_blas(),
        "environment": {name: os.environ[name] for name in environment if name in os.environ},
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "shared_machine": True,
        "note": SHARED_NOTE,
        **extra,
    }


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--quick", action="store_true", help="tiny sizes, one repeat: checks that the script works, not its numbers; results are not saved unless --output is given")
    p.add_argument("--output", type=Path, help="where to write the JSON (default: benchmarks/results/<name>.json in full mode, nowhere with --quick)")
    return p


def output_path(args: argparse.Namespace, name: str) -> Path | None:
    if args.output is not None:
        return args.output
    return None if args.quick else RESULTS / f"{name}.json"


def write_results(path: Path | None, results: dict[str, Any]) -> None:
    results["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    if path is None:
        print("\n(--quick: results not saved; pass --output FILE to keep them)")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")[1])
    partial.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    umask = os.umask(0)
    os.umask(umask)
    partial.chmod(0o666 & ~umask)  # mkstemp makes 0600 files; results are ordinary repository files
    os.replace(partial, path)
    print(f"\nresults written to {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def median(values: list[float]) -> float:
    return statistics.median(values)


def table(header: list[str], rows: list[list[str]]) -> str:
    """A plain-text table with right-aligned columns."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    lines = [header, ["-" * w for w in widths], *rows]
    return "\n".join("  ".join(str(cell).rjust(w) for cell, w in zip(line, widths)) for line in lines)


def run_main(main: Callable[[list[str] | None], int]) -> None:
    sys.exit(main(None))
