"""The suite's fixtures and hooks: the layer of each test, the order files are handed to the workers, one
strict build of the site per session, Chromium and its tabs. The constants and helpers the tests import are in
tests/support/ (repository.py, build_support.py, browser_support.py, …), which pyproject.toml puts on the path."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

# The fixtures import the helpers of tests/support/ when they run: pytest-xdist's controller, which runs no
# test, imports this file too, and the project these helpers load (mkdocs.yml, with its plugins) kept it 1.3 s
# from starting the workers.
if TYPE_CHECKING:
    from qkv_site.project import Project

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
# within a layer, the files that make a build of their own first, then the longest files (a long file
# handed out last would keep one worker busy while the other waits), then those with more tests.
# A file is placed by the heaviest of its tests that the run selects: under -m unit, a file whose other
# tests need the site is placed with the unit files.
FIRST_FILE = "tests/browser/test_browser.py"
LAYERS = ("unit", "build", "browser")  # lightest to heaviest: a file is in the layer of its heaviest test
POSITION = {"unit": 1, "browser": 2, "build": 3}  # where a layer's files go in the order
# The files whose unit tests take longest, longest first (seconds of one worker on the idle machine).
LONGEST_FILES = (
    "tests/qkv/test_learning_results.py",  # 13: the shown seed's runs retrained (the results script reuses three of them)
    "tests/build/test_figures.py",  # 13: every figure drawn in both languages and schemes (3 when .cache/figures/ is current)
    "tests/build/test_figure_legibility.py",  # 10: every figure drawn again, as pixels
    "tests/build/test_perturbed_numerics.py",  # 6
    "tests/build/test_benchmarks.py",  # 6 (three scripts run quick, and one quick pytest run)
    "tests/qkv/test_tiled.py",  # 5
    "tests/pages/test_why_sqrt_dk.py",  # 5
    "tests/qkv/test_properties.py",  # 5
    "tests/qkv/test_float16.py",  # 4
    "tests/build/test_build_cache.py",  # 3
)
# Unit files that check a copy of what the session's build keeps in .cache/ when it is current, and draw it
# themselves when it is not: in a run that starts with the build (FIRST_FILE), they go after the other unit files,
# by which time the build has usually drawn it (in a fresh clone, test_figures.py then copies the figures
# instead of drawing them; nothing waits for the build).
AFTER_THE_BUILD = ("tests/build/test_figures.py",)


def _layer(item: pytest.Item) -> str:
    needs = set(getattr(item, "fixturenames", ()))
    if item.get_closest_marker("browser") or needs & BROWSER_FIXTURES:
        return "browser"
    if item.get_closest_marker("build") or needs & BUILD_FIXTURES:
        return "build"
    return "unit"


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> Iterator[None]:
    builds = {item.nodeid for item in items
              if item.get_closest_marker("build") or set(getattr(item, "fixturenames", ())) & OWN_BUILD_FIXTURES}
    for item in items:  # before -m deselects anything: it selects by these marks
        item.add_marker(getattr(pytest.mark, _layer(item)))
    yield
    file_layer: dict[str, str] = {}
    file_tests: dict[str, int] = {}
    own_build: set[str] = set()
    for item in items:  # the tests the run selected
        path = item.nodeid.split("::")[0]
        if item.nodeid in builds:
            own_build.add(path)
        file_layer[path] = max(file_layer.get(path, "unit"), _layer(item), key=LAYERS.index)
        file_tests[path] = file_tests.get(path, 0) + 1

    builds_first = FIRST_FILE in file_layer

    def rank(path: str) -> tuple[int, bool, bool, int, int]:
        if path == FIRST_FILE:
            return (0, False, False, 0, 0)
        longest = LONGEST_FILES.index(path) if path in LONGEST_FILES else len(LONGEST_FILES)
        after_the_build = builds_first and path in AFTER_THE_BUILD
        return (POSITION[file_layer[path]], path not in own_build, after_the_build, longest, -file_tests[path])

    items.sort(key=lambda item: rank(item.nodeid.split("::")[0]))  # stable: each file keeps its own order


@pytest.fixture(scope="session")
def torch():  # type: ignore[no-untyped-def]
    """PyTorch, the oracle some tests compare qkv with (they are skipped without it). Imported when a test first
    asks for it: imported by the test modules, it cost every worker 1.3 s of collection.

    In a pytest-xdist worker it gets the worker's share of the cores: left at one thread per core, each of
    torch's calls woke an OpenMP thread on the core another worker was using, and it spun there (beside the
    oracle tests, the other worker ran at a third of its speed). Its results stay within the tests' tolerances
    either way: they are another rounding of the same products. numpy's OpenBLAS is left as it is: its thread
    count is part of the build cache's keys.
    """
    torch = pytest.importorskip("torch")
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // workers))
    return torch


@pytest.fixture(scope="session")
def project() -> Project:
    """`the_project`, for a test that asks for it by name."""
    from repository import the_project

    return the_project()


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once per run with ``--strict`` by the first worker that needs it (the others wait
    for it and read the same folder); the session fails here if the build does."""
    from build_support import SITE_BUILD, build_site, shared_folder
    from filelock import FileLock
    from repository import ROOT

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
    from repository import SITE_URL

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


# pytest-xdist: what each worker's browser tests report (tests/browser/test_browser.py's Report), printed by the controller.
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
