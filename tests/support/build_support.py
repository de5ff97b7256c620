"""Building the site from the tests: a strict build as the deploy workflow makes it, a clean copy of the
checkout to build from, and the record of the session's build (tests/conftest.py's ``site`` fixture)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from repository import DEPLOY_ENV, ROOT


def build_site(site_dir: Path, config: Path = ROOT / "mkdocs.yml", deploy_env: bool = True,
               machine: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``mkdocs build --strict`` into ``site_dir`` (with ``deploy_env``: as the deploy workflow
    does, else as a plain ``mkdocs build``; with ``machine``: these variables set, to compute as another
    machine would); return the finished process."""
    env = {key: value for key, value in os.environ.items() if key not in DEPLOY_ENV}
    env |= {"NO_MKDOCS_2_WARNING": "1"} | (DEPLOY_ENV if deploy_env else {}) | (machine or {})
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site_dir)]
    return subprocess.run(command, cwd=config.parent, env=env, capture_output=True, text=True, timeout=900)


# What a copy of the checkout leaves out: caches and build outputs, so that a build of it starts clean.
NOT_COPIED = {".git", ".venv", "site", ".cache", ".hypothesis", ".pytest_cache", ".mypy_cache", "__pycache__", "node_modules"}


def copy_checkout(destination: Path) -> Path:
    """A copy of the checkout without its caches and build outputs; returns the copy's mkdocs.yml."""
    import shutil

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {name for name in names if name in NOT_COPIED or name.endswith(".egg-info")}

    shutil.copytree(ROOT, destination, symlinks=True, ignore=ignore)
    return destination / "mkdocs.yml"


# Whether the repository's build cache (.cache/) was there before the session's build: that build was
# then a cached one, else a clean one (tests/browser/test_browser.py's second build is the other kind).
SITE_BUILD = {"cached": False}


def shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every worker of this run shares (pytest-xdist gives each its own basetemp below it)."""
    basetemp = tmp_path_factory.getbasetemp()
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp
