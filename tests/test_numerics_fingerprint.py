"""The build's caches are keyed by the machine's arithmetic: a `.cache/` carried to another CPU or BLAS kernel is not reused."""

from __future__ import annotations

import os
import subprocess
import sys

from perturbed_numerics import another_machine

from qkv_site.builder.block_cache import inputs_digest
from qkv_site.cache_files import numerics_fingerprint
from qkv_site.figures.stamp import source_digest
from qkv_site.project import Project


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
