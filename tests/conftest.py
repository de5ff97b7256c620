"""Shared fixtures: the repository's paths and one strict build of the site per test session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from qkv_site.project import Project, load_project

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LANGUAGES = load_project(ROOT / "mkdocs.yml").languages  # the i18n plugin's, the default first
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
# site (the session's ``site``, test_links_out's ``plain_site``, or a small build of its own, marked
# ``build`` by hand), else it is a unit test.
# ``pytest -m "not browser"`` is the loop without Chromium, ``pytest -m unit`` the one without a build.
BROWSER_FIXTURES = {"browser", "tabs", "pdf_site"}
BUILD_FIXTURES = {"site", "plain_site"}
OWN_BUILD_FIXTURES = {"plain_site"}  # a whole build besides the session's


# The order files are handed to the two pytest-xdist workers (--dist loadfile: a file's tests stay on one
# worker, so its module fixtures are made once; --no-loadscope-reorder: this order, not xdist's own by
# number of tests). Each worker takes the next file when it runs short, so the order decides how the
# two end: the longest file first (its worker builds the site for both), the unit files next (the other
# worker runs them while the site is built), then the browser files and last the built-HTML files;
# within a layer, the files that make a build of their own first, then those with more tests.
FIRST_FILE = "tests/test_browser.py"
LAYERS = ("unit", "build", "browser")  # lightest to heaviest: a file is in the layer of its heaviest test
POSITION = {"unit": 1, "browser": 2, "build": 3}  # where a layer's files go in the order


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    file_layer: dict[str, str] = {}
    file_tests: dict[str, int] = {}
    own_build: set[str] = set()
    for item in items:
        needs = set(getattr(item, "fixturenames", ()))
        path = item.nodeid.split("::")[0]
        if item.get_closest_marker("build") or needs & OWN_BUILD_FIXTURES:
            own_build.add(path)
        if item.get_closest_marker("browser") or needs & BROWSER_FIXTURES:
            layer = "browser"
        elif item.get_closest_marker("build") or needs & BUILD_FIXTURES:
            layer = "build"
        else:
            layer = "unit"
        item.add_marker(getattr(pytest.mark, layer))
        file_layer[path] = max(file_layer.get(path, "unit"), layer, key=LAYERS.index)
        file_tests[path] = file_tests.get(path, 0) + 1

    def rank(path: str) -> tuple[int, bool, int]:
        return (0, False, 0) if path == FIRST_FILE else (POSITION[file_layer[path]], path not in own_build, -file_tests[path])

    items.sort(key=lambda item: rank(item.nodeid.split("::")[0]))  # stable: each file keeps its own order


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


def shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every worker of this run shares (pytest-xdist gives each its own basetemp below it)."""
    basetemp = tmp_path_factory.getbasetemp()
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once per run with ``--strict`` by the first worker that needs it (the others wait
    for it and read the same folder); the session fails here if the build does."""
    from filelock import FileLock

    shared = shared_folder(tmp_path_factory)
    site_dir, record = shared / "site", shared / "site-build.json"
    with FileLock(shared / "site-build.lock"):
        if not record.exists():
            cached = (ROOT / ".cache").is_dir()
            result = build_site(site_dir)
            record.write_text(json.dumps({"cached": cached, "returncode": result.returncode,
                                          "stdout": result.stdout[-4000:], "stderr": result.stderr[-8000:]}), encoding="utf-8")
        build = json.loads(record.read_text(encoding="utf-8"))
    SITE_BUILD["cached"] = build["cached"]
    if build["returncode"] != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{build['stdout']}\n{build['stderr']}", pytrace=False)
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
def tabs(browser):
    """Tabs that the browser tests borrow and give back reset (browser_support.Tabs)."""
    from browser_support import Tabs

    pool = Tabs(browser)
    yield pool
    pool.close()


@pytest.fixture(scope="session")
def server(site: Path):
    """The built site on an ephemeral port of 127.0.0.1, under the sub-path it is built for."""
    from qkv_site.tools.local_browser import SiteServer

    with SiteServer(site, urlsplit(SITE_URL).path) as running:
        yield running


@pytest.fixture
def page(tabs, server):
    """A desktop tab's page (allowed to use the clipboard) for one test, which fails afterwards if the
    page threw a JavaScript error or asked another host for anything."""
    from browser_support import CLIPBOARD, DESKTOP

    errors: list[str] = []
    with tabs.open(server, viewport=DESKTOP, permissions=CLIPBOARD) as tab:
        tab.listen("pageerror", lambda error: errors.append(str(error)))
        yield tab.page
        foreign = list(tab.foreign)
    assert not errors, f"JavaScript errors on the page: {errors}"
    assert not foreign, f"requests to other hosts: {foreign}"


# pytest-xdist: what each worker's browser tests report (tests/test_browser.py's Report), printed by the controller.
WORKER_REPORTS: list[list[str]] = []


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # type: ignore[no-untyped-def]
    lines = getattr(node, "workeroutput", {}).get("browser_report")
    if lines:
        WORKER_REPORTS.append(lines)


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    for lines in WORKER_REPORTS:
        terminalreporter.section("browser tests")
        for line in lines:
            terminalreporter.write_line(line)
