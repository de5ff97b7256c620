"""The same site on another machine: a build that computes as another CPU would gives the same pages and figures.

The build runs from a clean copy of the checkout with OpenBLAS on its Prescott kernel (SSE3, no AVX)
and numpy without the SIMD extensions it would dispatch to here, so every exp, log and matrix
product rounds as on an older x86 machine, and compares every file with the session's build.
"""

from __future__ import annotations

import filecmp
import fnmatch
from pathlib import Path

import pytest
from build_support import build_site, copy_checkout
from perturbed_numerics import another_machine

# The files that may differ, and why (README: "The same site on every machine"), as patterns of their paths.
MAY_DIFFER = {
    "sitemap.xml": "<lastmod> is the build date",
    "sitemap.xml.gz": "the same, and gzip stores a timestamp",
}


def may_differ(name: str) -> bool:
    """Whether the built file ``name`` (``en/figures/learned_it.light.svg``) is one that `MAY_DIFFER` names."""
    path = name.removeprefix("en/")
    return any(fnmatch.fnmatch(path, pattern) for pattern in MAY_DIFFER)


@pytest.fixture(scope="module")
def other_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    workdir = tmp_path_factory.mktemp("another-machine")
    result = build_site(workdir / "site", copy_checkout(workdir / "repo"), machine=another_machine())
    assert result.returncode == 0, f"the build as another machine failed:\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
    return workdir / "site"


@pytest.mark.build
def test_a_build_on_another_blas_kernel_and_simd_level_gives_the_same_files(site: Path, other_site: Path) -> None:
    here = {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()}
    there = {path.relative_to(other_site).as_posix() for path in other_site.rglob("*") if path.is_file()}
    assert here == there, f"only here: {sorted(here - there)[:20]}; only there: {sorted(there - here)[:20]}"
    differing = [name for name in sorted(here)
                 if not may_differ(name) and not filecmp.cmp(site / name, other_site / name, shallow=False)]
    assert not differing, f"{len(differing)} files differ on another machine: {differing[:40]}"
