"""Shared fixtures: the repository's paths and one strict build of the site per test session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from qkv_site.project import Project, load_project

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LANGUAGES = ("zh", "en")
# The tests build the site as the deploy workflow does: for its published address, a sub-path as
# GitHub Pages serves a project site (/<repo>/), and with the repository it comes from. The served
# copy (``server``) is on 127.0.0.1 under the same sub-path; no page may name that address.
SITE_URL = "https://example.org/qkv-site/"
REPO_URL = "https://github.com/example/qkv-site"
REPO_NAME = "example/qkv-site"
# What a build reads from its environment (mkdocs.yml's !ENV), which a build without them must not see.
DEPLOY_ENV = {"SITE_URL": SITE_URL, "REPO_URL": REPO_URL, "REPO_NAME": REPO_NAME}


# The three layers of the suite (markers declared in pyproject.toml). A test is in the layer of the
# heaviest thing it needs: Chromium (the ``browser`` fixture, or the PDFs made with it), else a built
# site (the ``site`` fixture, or a build of its own, marked ``build`` by hand), else it is a unit test.
# ``pytest -m "not browser"`` is the loop without Chromium, ``pytest -m unit`` the one without a build.
BROWSER_FIXTURES = {"browser", "pdf_site"}
BUILD_FIXTURES = {"site"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        needs = set(getattr(item, "fixturenames", ()))
        if item.get_closest_marker("browser") or needs & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
        elif item.get_closest_marker("build") or needs & BUILD_FIXTURES:
            item.add_marker(pytest.mark.build)
        else:
            item.add_marker(pytest.mark.unit)


def build_site(site_dir: Path, config: Path = ROOT / "mkdocs.yml", deploy_env: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``mkdocs build --strict`` into ``site_dir`` (with ``deploy_env``: as the deploy workflow
    does, else as a plain ``mkdocs build``); return the finished process."""
    env = {key: value for key, value in os.environ.items() if key not in DEPLOY_ENV}
    env |= {"NO_MKDOCS_2_WARNING": "1"} | (DEPLOY_ENV if deploy_env else {})
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site_dir)]
    return subprocess.run(command, cwd=config.parent, env=env, capture_output=True, text=True, timeout=900)


def the_project() -> Project:
    """The project's paths as the build sees them: loaded from the repository's mkdocs.yml (once per process)."""
    return load_project(ROOT / "mkdocs.yml")


@pytest.fixture(scope="session")
def project() -> Project:
    """`the_project`, for a test that asks for it by name."""
    return the_project()


# Whether the repository's build cache (.cache/) was there before the session's build: that build was
# then a cached one, else a clean one (tests/test_browser.py's second build is the other kind).
SITE_BUILD = {"cached": False}


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once with ``--strict``; the test session fails here if the build does."""
    site_dir = tmp_path_factory.mktemp("site")
    SITE_BUILD["cached"] = (ROOT / ".cache").is_dir()
    result = build_site(site_dir)
    if result.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{result.stdout[-4000:]}\n{result.stderr[-8000:]}", pytrace=False)
    return site_dir


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright, shared by every browser test (one Playwright per process)."""
    from browser_support import browser_unavailable, launch

    reason = browser_unavailable()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the browser tests cannot run in CI (CI=true): {reason}", pytrace=False)
        pytest.skip(f"browser tests skipped: {reason}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def server(site: Path):
    """The built site on an ephemeral port of 127.0.0.1, under the sub-path it is built for."""
    from qkv_site.tools.local_browser import SiteServer

    with SiteServer(site, urlsplit(SITE_URL).path) as running:
        yield running
