"""The built site in a real browser (the system's Chromium, driven by Playwright's sync API).

Every page of the nav, in both languages, is opened once per crawl and everything the tests need is
recorded on that one visit; the tests below then check the records, one test per page and concern:

- light (desktop, light scheme): formulas, console, requests, images, links, axe, screenshots
  (with QKV_SCREENSHOTS=folder), the tables (wide columns in view, scroll bars), the language
  selector (clicked) and the palette toggle (figures swap to their dark variant and back; axe
  in the dark scheme on a few pages while it is on);
- phone (375 px wide, the reader's system prefers dark, the site served under a sub-path as on
  GitHub Pages): the page opens in the dark scheme with the dark figures; no horizontal
  scrolling outside formulas, code and tables; a table wider than the phone shows its scroll bar;
  formulas, console, requests, images, language links.

Plus: deep links keep their anchor across the language switch, Material's search in both languages,
internal links and anchors resolve on the server, and two builds are byte-identical.
If Chromium or Playwright is missing the browser tests are skipped (they fail when CI=true).
"""

from __future__ import annotations

import concurrent.futures
import filecmp
import functools
import json
import os
import re
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit

import pytest
from browser_support import DESKTOP, TIMEOUT_MS, WAIT_MS, LocalOnly, SiteServer, click_in_place
from browser_support import PHONE as MOBILE
from build_support import SITE_BUILD, build_site, copy_checkout
from repository import LANGUAGES, ROOT, SITE_URL
from site_pages import expected_formulas, is_pdf_edition, nav_sources, page_url

PAGES = nav_sources()


# The tests build the site for a sub-path (repository.SITE_URL), as GitHub Pages serves it: every
# crawl serves it there, so a link that only works from the root fails them all.
SUBPATH = urlsplit(SITE_URL).path
# Axe in the dark scheme on these pages (every page of both languages is checked in the light scheme),
# on the desktop with the palette toggled: the phone crawl opens every page dark, but its drawer hides
# the sidebars. In the dark scheme axe looks for what the colours change, and both languages share one
# stylesheet, so each page is looked at in one language, the two languages taking turns.
DARK_AXE_PAGES = (("zh", "index.md"), ("en", "worked-example.md"), ("zh", "why-sqrt-dk.md"), ("en", "complexity.md"),
                  ("zh", "notebook.ipynb"))
SEVERE = ("serious", "critical")
PAGE_IDS = [f"{lang}-{source.rsplit('.', 1)[0]}" for lang in LANGUAGES for source in PAGES]
ALL_PAGES = [(lang, source) for lang in LANGUAGES for source in PAGES]
# The pages with a figure (each in light and dark variants: qkv_site.builder.figures.figure_macro).
FIGURE_PAGES = [(lang, source) for lang, source in ALL_PAGES if "{% call figure(" in (ROOT / "docs" / lang / source).read_text(encoding="utf-8")]


def other(lang: str) -> str:
    return next(language for language in LANGUAGES if language != lang)


def stem(source: str) -> str:
    return source.rsplit(".", 1)[0]


# ---------------------------------------------------------------------------------------------
# What the browser runs on each page
# ---------------------------------------------------------------------------------------------

# Wait for every image (including the hidden scheme variant) and the fonts.
SETTLE_JS = """async () => {
  const limit = (ms, what) => new Promise((_, reject) => setTimeout(
    () => reject(new Error(`${location.href}: ${what} not settled after ${ms / 1000} s`)), ms));
  const images = [...document.images];
  for (const img of images) if (img.loading === "lazy") img.loading = "eager";
  const settled = images.map((img) => img.complete ? null : new Promise((resolve) => {
    img.addEventListener("load", resolve, {once: true});
    img.addEventListener("error", resolve, {once: true});
  }));
  await Promise.race([Promise.all(settled), limit(60000, "the images")]);
  await Promise.race([document.fonts.ready, limit(60000, "document.fonts.ready")]);
  return images.length;
}"""

# Everything the tests check, read from the page in one go.
COLLECT_JS = r"""() => {
  const article = document.querySelector("article.md-content__inner");
  const SKIP = "pre, code, script, style, textarea, mjx-container";
  const MARKERS = ["$$", "\\(", "\\[", "\\begin{", "\\frac"];
  // The text a reader sees (or, for visibleOnly=false, all text), outside code and typeset math.
  function textOf(root, visibleOnly) {
    if (!root) return "";
    const parts = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || el.closest(SKIP)) continue;
      if (visibleOnly && !el.checkVisibility()) continue;
      parts.push(node.data);
    }
    return parts.join(" ").replace(/\s+/g, " ");
  }
  function rawTex(text) {
    const found = [];
    for (const marker of MARKERS) {
      const at = text.indexOf(marker);
      if (at >= 0) found.push(`${marker} in …${text.slice(Math.max(0, at - 60), at + 60)}…`);
    }
    const dollars = text.match(/\$[^$\s][^$]*?\$/);
    if (dollars) found.push(`unprocessed ${dollars[0].slice(0, 80)}`);
    return found;
  }
  const tocs = [...document.querySelectorAll("nav.md-nav--secondary")];
  return {
    url: location.href,
    lang: document.documentElement.lang,
    scheme: document.body.getAttribute("data-md-color-scheme"),
    hasArticle: !!article,
    mathEngine: !!(window.MathJax || window.katex),
    formulas: article ? article.querySelectorAll(".arithmatex > mjx-container > svg").length : 0,
    mathErrors: [...document.querySelectorAll('[data-mml-node="merror"]')].map((el) => el.textContent.slice(0, 120)),
    rawTex: rawTex(textOf(article, true)),
    tocRawTex: tocs.flatMap((toc) => rawTex(textOf(toc, false))),
    images: [...document.images].map((img) => ({
      src: img.getAttribute("src"), url: img.currentSrc || img.src, alt: img.alt,
      width: img.naturalWidth, height: img.naturalHeight, complete: img.complete,
      shown: img.offsetParent !== null && getComputedStyle(img).display !== "none",
    })),
    links: [...document.querySelectorAll("a[href]")].map((a) => ({href: a.getAttribute("href"), url: a.href})),
    ids: [...document.querySelectorAll("[id]")].map((el) => el.id),
    languageLinks: Object.fromEntries([...document.querySelectorAll("a.md-select__link[hreflang]")].map(
      (a) => [a.getAttribute("hreflang"), a.href])),
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  };
}"""

# The outermost elements that stick out to the right of the viewport, ignoring anything inside a
# container that scrolls or clips by itself, or that is fixed (fixed boxes do not make the page scroll).
OVERFLOW_JS = r"""() => {
  const vw = window.innerWidth;
  const describe = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + [...el.classList].slice(0, 3).map((c) => "." + c).join("");
  const contained = (el) => {
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.position === "fixed" || !["visible", ""].includes(style.overflowX)) return true;
    }
    return getComputedStyle(el).position === "fixed";
  };
  const sticks = (el) => el.getBoundingClientRect().right > vw + 0.5;
  const offenders = [];
  for (const el of document.body.querySelectorAll("*")) {
    const box = el.getBoundingClientRect();
    if (!box.width || !sticks(el) || contained(el)) continue;
    if (el.parentElement && el.parentElement !== document.body && sticks(el.parentElement)
        && !contained(el.parentElement)) continue;  // report the outermost one
    let path = [], up = el;
    for (let i = 0; up && up !== document.body && i < 5; i++, up = up.parentElement) path.unshift(describe(up));
    offenders.push({element: path.join(" > "), right: Math.round(box.right), width: Math.round(box.width),
                    text: (el.textContent || "").trim().slice(0, 80)});
  }
  offenders.sort((a, b) => b.right - a.right);
  return offenders.slice(0, 5);
}"""

# Every table of the article: its headers (and whether each is in view), whether it overflows its
# column, its scroll bar and whether a keyboard reaches it.
TABLES_JS = r"""() => [...document.querySelectorAll("article table")].map((table) => {
  const wrap = table.closest(".md-typeset__scrollwrap") || table.parentElement;
  const edge = wrap.getBoundingClientRect().right;
  const style = getComputedStyle(wrap);
  const thumb = (style.scrollbarColor.match(/rgba?\([^)]*\)/) || ["rgba(0, 0, 0, 0)"])[0].match(/[\d.]+/g).map(Number);
  return {
    headers: [...table.querySelectorAll("th")].map((th) => ({text: th.textContent.trim(), inView: th.getBoundingClientRect().right <= edge + 0.5})),
    overflows: wrap.scrollWidth > wrap.clientWidth,
    scrollbar: {width: style.scrollbarWidth, thumbAlpha: thumb.length > 3 ? thumb[3] : 1},
    focusable: wrap.tabIndex >= 0,
  };
})"""

# The figures' two variants: which one is displayed.
FIGURES_JS = """() => [...document.querySelectorAll("article img[src*='#only-']")].map((img) => ({
  src: img.getAttribute("src"),
  shown: img.offsetParent !== null && getComputedStyle(img).display !== "none",
}))"""


# ---------------------------------------------------------------------------------------------
# One browser tab that records what happens on each visit
# ---------------------------------------------------------------------------------------------

@dataclass
class Visit:
    lang: str
    source: str
    url: str
    error: str | None = None  # navigation or script failure while visiting
    status: int | None = None
    console: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    bad_status: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dom: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)  # what a crawl adds: axe, screenshot, clicks, overflow


@functools.cache
def last_search_file(site: Path, lang: str) -> str:
    """The last file Material's search worker fetches on a page of ``lang``. The worker fetches the
    page's index, then lunr's language files one after another, the multi-language one last; an
    English-only index needs no language file (lunr's English is in the worker)."""
    index = site / ("" if lang == LANGUAGES[0] else lang) / "search" / "search_index.json"
    languages = json.loads(index.read_text(encoding="utf-8"))["config"]["lang"]
    if len(languages) > 1:
        return "/lunr.multi.min.js"
    return "/search/search_index.json" if languages == ["en"] else f"/lunr.{languages[0]}.min.js"


class Tab(LocalOnly):
    """The crawl's tab: reused for every visit, it records what each visit loads, logs and fails."""

    def __init__(self, browser, server: SiteServer, **options) -> None:
        super().__init__(browser, server, **options)
        self.current: Visit | None = None
        self.in_flight: dict = {}  # request -> (the visit that made it, the navigation of the document that made it)
        self.navigations = 0  # how many navigations this tab has started (see navigating())
        # The navigation whose document is on display: set when a navigation commits. A request made
        # between navigating() and that commit (a late favicon, a search file) belongs to the old page.
        self.shown_navigation = 0
        self.stub_navigation = False  # answer the next page load with an empty page (see click_language)
        self.page_start = 0  # where, in the current visit's requests, those of the shown document begin
        page = self.page
        page.on("console", lambda message: message.type == "error" and self._log("console", f"{message.text} [{message.location.get('url', '')}]"))
        page.on("pageerror", lambda error: self._log("page_errors", str(error)))
        page.on("request", self._on_request)
        page.on("framenavigated", lambda frame: frame == page.main_frame and setattr(self, "shown_navigation", self.navigations))
        page.on("requestfinished", lambda request: self.in_flight.pop(request, None))
        page.on("requestfailed", self._on_failed)
        page.on("response", lambda response: response.status >= 400 and self._log("bad_status", f"{response.status} {response.url}"))

    def _log(self, kind: str, entry: str) -> None:
        if self.current is not None:
            getattr(self.current, kind).append(entry)

    def _route(self, route) -> None:
        url = route.request.url
        if self.stub_navigation and route.request.is_navigation_request():
            self.stub_navigation = False
            route.fulfill(status=200, content_type="text/html", body="<!doctype html><title>stub</title>")
        elif urlsplit(url).netloc == self.server.host:
            route.continue_()
        else:
            self.foreign.append(url)
            self._log("foreign", url)
            route.abort("blockedbyclient")

    def _on_request(self, request) -> None:
        if request.is_navigation_request() and self.current is not None:
            self.page_start = len(self.current.requests)  # where the requests of the new document begin
        # A page load belongs to the navigation it starts; anything else to the document on display.
        self.in_flight[request] = (self.current, self.navigations if request.is_navigation_request() else self.shown_navigation)
        self._log("requests", request.url)

    def _on_failed(self, request) -> None:
        owner, navigation = self.in_flight.pop(request, (self.current, self.shown_navigation))
        if urlsplit(request.url).netloc != self.server.host:
            return  # foreign requests are recorded as such
        if navigation < self.navigations and "ERR_ABORTED" in (request.failure or ""):
            # Made by a document this tab has since navigated away from (a page load, a click on
            # the language selector) and cancelled by that: the page it belonged to is gone; not a
            # failure. (The search worker's lunr files and Chromium's late favicon request were.)
            return
        if owner is not None:
            owner.failed.append(f"{request.url}: {request.failure}")

    def navigating(self) -> None:
        """Call just before starting a navigation: what is still loading may be cancelled by it."""
        self.navigations += 1

    def drain(self, seconds: float = WAIT_MS / 1000) -> None:
        """Wait for the requests still under way (the search index, a font) so that none of them is
        cancelled by the next navigation and reported against the next page."""
        deadline = time.monotonic() + seconds
        while self.in_flight and time.monotonic() < deadline:
            self.page.wait_for_timeout(25)
        if self.in_flight:
            still = sorted(request.url for request in self.in_flight)
            raise AssertionError(f"requests still loading after {seconds:.0f} s: {still}")

    def wait_for_search(self, seconds: float = WAIT_MS / 1000) -> None:
        """Wait until nothing is in flight and, when the page has started Material's search, until the
        search has loaded its last file: a click that leaves the page must not cancel the search.

        A page starts the search only when the reader goes to search (search-on-demand.js): a page
        nobody searched loads no search file, and then there is nothing to wait for. The search files
        are those of the document on display (after a language switch, the other language's), read
        from its ``<html lang>``."""
        deadline = time.monotonic() + seconds
        visit = self.current
        lang = self.page.evaluate("() => document.documentElement.lang")
        last = last_search_file(self.server.directory, lang)

        def waiting() -> bool:
            shown = visit.requests[self.page_start:]
            started = any("/search/search_index.json" in url or "/workers/search." in url for url in shown)
            return bool(self.in_flight) or (started and not any(url.endswith(last) for url in shown))

        while waiting() and time.monotonic() < deadline:
            self.page.wait_for_timeout(25)
        if waiting():
            still = sorted(request.url for request in self.in_flight)
            raise AssertionError(f"{self.page.url}: search not ready after {seconds:.0f} s (waiting for {last}; still loading: {still})")

    def visit(self, lang: str, source: str, hash_: str = "") -> Visit:
        self.drain()
        visit = Visit(lang, source, self.server.url(page_url(source, lang)) + hash_)
        self.current = visit
        self.navigating()
        try:
            response = self.page.goto(visit.url, wait_until="load")
            visit.status = response.status if response else None
            self.settle()
            self.wait_for_search()
            visit.dom = self.page.evaluate(COLLECT_JS)
        except Exception as error:  # noqa: BLE001 - recorded and reported by every test of the page
            visit.error = f"{type(error).__name__}: {error}"
        return visit

    def settle(self) -> None:
        self.page.evaluate(SETTLE_JS)

    def close(self) -> None:
        self.drain()
        self.current = None
        self.context.close()


# ---------------------------------------------------------------------------------------------
# Session fixtures: the report, the browser, the servers, the crawls
# ---------------------------------------------------------------------------------------------

class Report:
    """Lines for the terminal summary (registered as a plugin so they come after the results)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.started = time.monotonic()
        self.counts: dict[str, int] = {}
        self.external: dict[str, set[str]] = {}
        self.theme_exceptions: set[str] = set()
        self.timings: dict[str, float] = {}

    def count(self, name: str, n: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + n

    def summary(self) -> list[str]:
        """What the terminal summary says, line by line (none when no browser test ran)."""
        if not (self.lines or self.counts or self.external or self.theme_exceptions):
            return []
        lines = [", ".join(f"{name}: {n}" for name, n in self.counts.items())] if self.counts else []
        lines += self.lines
        lines += [f"axe finding excused (see THEME_EXCEPTIONS): {exception}" for exception in sorted(self.theme_exceptions)]
        if self.external:
            lines.append(f"external links (listed, never fetched): {len(self.external)}")
            lines += [f"  {url}  (on {len(pages)} page{'s' if len(pages) > 1 else ''})" for url, pages in sorted(self.external.items())]
        if self.timings:
            lines.append("time: " + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in self.timings.items()))
        lines.append(f"wall time since the first browser test started: {time.monotonic() - self.started:.0f} s")
        return lines

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workeroutput"):  # a pytest-xdist worker: its controller prints it (conftest.py)
            session.config.workeroutput["browser_report"] = self.summary()

    def pytest_terminal_summary(self, terminalreporter) -> None:
        lines = self.summary()
        if lines:
            terminalreporter.section("browser tests")
            for line in lines:
                terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def report(request: pytest.FixtureRequest) -> Report:
    summary = Report()
    request.config.pluginmanager.register(summary, "qkv-browser-report")
    return summary


@pytest.fixture(scope="session")
def screenshots(report: Report) -> Path | None:
    """Where the crawls save a full-page screenshot of every page in both schemes: the folder
    $QKV_SCREENSHOTS names, or nowhere when it is not set. The 68 screenshots are for looking at the
    pages; the one check is that they were saved."""
    if not os.environ.get("QKV_SCREENSHOTS"):
        report.lines.append("screenshots: none saved (QKV_SCREENSHOTS=folder saves one of every page in both schemes)")
        return None
    folder = Path(os.environ["QKV_SCREENSHOTS"])
    folder.mkdir(parents=True, exist_ok=True)
    report.lines.append(f"screenshots: {folder}")
    return folder


@pytest.fixture(scope="session")
def second_build(site: Path, tmp_path_factory: pytest.TempPathFactory, report: Report):
    """A second build of the other kind, started in the background when the first crawl starts so that
    it overlaps the browser work: a clean one from a copy of the checkout without its cache (no figures,
    no notebook cache: everything is drawn and executed again) when the session's build had a cache to
    read, else a cached one from the checkout, reading what the session's clean build just kept. Either
    way a cached build is compared with a clean one. If someone edits a page between the two builds, rerun."""
    workdir = tmp_path_factory.mktemp("second-build")
    config = ROOT / "mkdocs.yml"
    if SITE_BUILD["cached"]:
        config = copy_checkout(workdir / "repo")  # the checkout minus caches and build outputs
    kind = "clean" if SITE_BUILD["cached"] else "cached"

    def build():
        started = time.monotonic()
        result = build_site(workdir / "site", config)
        report.timings[f"second build, {kind} (background)"] = time.monotonic() - started
        return result

    executor = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    future = executor.submit(build)
    yield workdir / "site", future
    executor.shutdown(wait=True)


def screenshot(tab: Tab, visit: Visit, folder: Path | None, scheme: str) -> None:
    if folder is None:
        return
    path = folder / f"{visit.lang}-{stem(visit.source)}-{scheme}.png"
    tab.page.screenshot(path=str(path), full_page=True)
    visit.extra["screenshot"] = path


# axe findings on Material's own markup that the site cannot fix without overriding the theme's
# templates (it has no custom_dir); each one is named here, on its exact element, and listed in the
# terminal summary. Every other serious or critical finding fails the page.
THEME_EXCEPTIONS = {
    # Material's partials/search.html: <div class="md-search" data-md-component="search"
    # role="dialog"> carries no aria-label / aria-labelledby.
    ("aria-dialog-name", ".md-search"),
}


def run_axe(tab: Tab, report: Report) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(tab.page)
    found = []
    for violation in results.response["violations"]:
        if violation["impact"] not in SEVERE:
            continue
        targets = [" ".join(map(str, node["target"])) for node in violation["nodes"]]
        excused = [target for target in targets if (violation["id"], target) in THEME_EXCEPTIONS]
        for target in excused:
            report.theme_exceptions.add(f"{violation['id']} on {target} (Material's markup)")
        targets = [target for target in targets if target not in excused]
        if targets:
            found.append(f"{violation['id']} ({violation['impact']}): {violation['help']} — " + "; ".join(targets[:4]))
    return found


def click_language(tab: Tab, lang: str, load: bool = True) -> str:
    """Open Material's language menu, click ``lang`` and return where the browser lands (with its hash).

    With ``load=False`` the target is answered with an empty page: the URL is what is checked, and
    the target page gets its own full visit in the crawl anyway (this saves a page load per page).
    """
    page = tab.page
    tab.drain()  # what the page still loads (a late favicon, a lunr file) is not cut off by the click
    page.hover("div.md-select")
    tab.stub_navigation = not load
    tab.navigating()
    try:
        with page.expect_navigation(wait_until="commit"):
            click_in_place(page, f"a.md-select__link[hreflang='{lang}']")
    finally:
        tab.stub_navigation = False
    return page.url


def toggle_palette(tab: Tab) -> str:
    """Click the palette toggle that is shown, wait for the scheme to change, return the new scheme."""
    page = tab.page
    before = page.evaluate("() => document.body.getAttribute('data-md-color-scheme')")
    page.locator("label.md-header__button[for^='__palette']:visible").click()
    page.wait_for_function(f"() => document.body.getAttribute('data-md-color-scheme') !== {before!r}")
    # The click leaves the pointer on the toggle, whose tooltip fades in: move it away, as a reader's
    # hand does, and wait until nothing fades any more (axe must not read a colour halfway).
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.mouse.move(0, 0)
    try:
        page.wait_for_function("() => !document.getAnimations().some((a) => a instanceof CSSTransition && a.playState === 'running')")
    except PlaywrightTimeout:
        raise AssertionError(f"{page.url}: colours still fading {TIMEOUT_MS // 1000} s after the palette toggle") from None
    return page.evaluate("() => document.body.getAttribute('data-md-color-scheme')")


@pytest.fixture(scope="session")
def light(browser, server: SiteServer, site: Path, screenshots: Path | None, report: Report, second_build) -> dict:
    """Every page, desktop, light scheme: the main crawl."""
    started = time.monotonic()
    tab = Tab(browser, server, viewport=DESKTOP, color_scheme="light")
    visits: dict[tuple[str, str], Visit] = {}
    for lang, source in ALL_PAGES:
        visit = visits[lang, source] = tab.visit(lang, source)
        if visit.error:
            continue
        try:
            screenshot(tab, visit, screenshots, "light")
            if source.endswith(".md"):
                visit.extra["tables"] = tab.page.evaluate(TABLES_JS)
            visit.extra["axe"] = run_axe(tab, report)
            has_figures = any(image["src"] and "#only-" in image["src"] for image in visit.dom["images"])
            if has_figures or (lang, source) in DARK_AXE_PAGES or screenshots is not None:
                states = []
                for _ in range(2):  # to dark and back to light
                    scheme = toggle_palette(tab)
                    tab.settle()
                    states.append((scheme, tab.page.evaluate(FIGURES_JS)))
                    if scheme == "slate":
                        screenshot(tab, visit, screenshots, "dark")
                        if (lang, source) in DARK_AXE_PAGES:
                            visit.extra["axe_dark"] = run_axe(tab, report)
                visit.extra["palette"] = states
            visit.extra["language_click"] = click_language(tab, other(lang), load=False)
        except Exception as error:  # noqa: BLE001
            visit.extra["error"] = f"{type(error).__name__}: {error}"
    tab.close()
    report.count("pages crawled (light)", len(visits))
    report.count("formulas checked (light)", sum(v.dom.get("formulas", 0) for v in visits.values()))
    report.timings["light crawl"] = time.monotonic() - started
    return visits


@pytest.fixture(scope="session")
def phone(browser, site: Path, report: Report) -> dict:
    """Every page on a 375 px wide phone whose system prefers the dark scheme, with the site served
    from a sub-path (as GitHub Pages serves a project site). One crawl for the three: none of their
    checks depends on the others (tables and overflow are laid out alike in both schemes)."""
    started = time.monotonic()
    with SiteServer(site, SUBPATH) as prefixed:
        tab = Tab(browser, prefixed, viewport=MOBILE, color_scheme="dark", device_scale_factor=1, has_touch=True)
        visits: dict[tuple[str, str], Visit] = {}
        for lang, source in ALL_PAGES:
            visit = visits[lang, source] = tab.visit(lang, source)
            if not visit.error and visit.dom["scrollWidth"] > visit.dom["innerWidth"]:
                visit.extra["overflow"] = tab.page.evaluate(OVERFLOW_JS)
            if not visit.error and source.endswith(".md"):
                visit.extra["tables"] = tab.page.evaluate(TABLES_JS)
        tab.close()
    report.count(f"pages crawled (phone, dark, under {SUBPATH})", len(visits))
    report.count("formulas checked (phone)", sum(v.dom.get("formulas", 0) for v in visits.values()))
    report.timings["phone + dark + sub-path crawl"] = time.monotonic() - started
    return visits


# ---------------------------------------------------------------------------------------------
# Checks shared by the crawls
# ---------------------------------------------------------------------------------------------

def check_loaded(visit: Visit) -> None:
    assert visit.error is None, f"{visit.url}: {visit.error}"
    assert visit.status == 200, f"{visit.url} answered {visit.status}"
    assert visit.extra.get("error") is None, f"{visit.url}: {visit.extra['error']}"
    assert visit.dom["hasArticle"], f"{visit.url} has no Material article"
    assert visit.dom["lang"] == visit.lang, f"{visit.url} declares lang={visit.dom['lang']}"


def check_math(visit: Visit, site: Path) -> None:
    dom = visit.dom
    assert not dom["mathEngine"], f"a math engine runs in the browser on {visit.url}"
    assert not dom["mathErrors"], f"formula errors on {visit.url}: {dom['mathErrors']}"
    assert not dom["rawTex"], f"raw TeX in the visible article of {visit.url}: {dom['rawTex']}"
    assert not dom["tocRawTex"], f"raw TeX in the table of contents of {visit.url}: {dom['tocRawTex']}"
    expected = expected_formulas(site, visit.lang, visit.source)
    assert dom["formulas"] == expected, f"{visit.url}: {dom['formulas']} typeset formulas shown, the page has {expected}"


def check_network(visit: Visit) -> None:
    problems = (
        [f"console error: {entry}" for entry in visit.console]
        + [f"page error: {entry}" for entry in visit.page_errors]
        + [f"failed request: {entry}" for entry in visit.failed]
        + [f"HTTP {entry}" for entry in visit.bad_status]
        + [f"request to another host (aborted): {entry}" for entry in visit.foreign]
    )
    assert not problems, f"{visit.url}:\n" + "\n".join(problems)


def check_images(visit: Visit) -> None:
    images = visit.dom["images"]
    broken = [f"{image['src']} ({image['width']}×{image['height']}, complete={image['complete']})" for image in images if not (image["complete"] and image["width"] > 0 and image["height"] > 0)]
    assert not broken, f"images that did not load on {visit.url}: {broken}"
    article_images = [image for image in images if image["src"] and not image["src"].startswith("data:")]
    missing_alt = [image["src"] for image in article_images if not image["alt"].strip()]
    assert not missing_alt, f"images without alt text on {visit.url}: {missing_alt}"


def check_language_links(visit: Visit, root: str) -> None:
    links = visit.dom["languageLinks"]
    assert set(links) == set(LANGUAGES), f"language selector on {visit.url} lists {sorted(links)}"
    for lang, url in links.items():
        expected = root + page_url(visit.source, lang).lstrip("/")
        assert urldefrag(url).url == expected, f"on {visit.url}, the {lang} link goes to {url}, not {expected}"


# ---------------------------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "source"), ALL_PAGES, ids=PAGE_IDS)
def test_formulas_are_typeset(light: dict, site: Path, lang: str, source: str) -> None:
    visit = light[lang, source]
    check_loaded(visit)
    check_math(visit, site)


@pytest.mark.parametrize(("lang", "source"), ALL_PAGES, ids=PAGE_IDS)
def test_no_console_error_failed_or_foreign_request(light: dict, phone: dict, lang: str, source: str) -> None:
    for visit in (light[lang, source], phone[lang, source]):
        check_loaded(visit)
        check_network(visit)


@pytest.mark.parametrize(("lang", "source"), ALL_PAGES, ids=PAGE_IDS)
def test_images_load_in_both_schemes(light: dict, phone: dict, report: Report, lang: str, source: str) -> None:
    for scheme, visit in (("default", light[lang, source]), ("slate", phone[lang, source])):
        check_loaded(visit)
        assert visit.dom["scheme"] == scheme, f"{visit.url} opened in the {visit.dom['scheme']} scheme, expected {scheme}"
        check_images(visit)
        shown = [image["src"] for image in visit.dom["images"] if image["src"] and "#only-" in image["src"] and image["shown"]]
        wanted = "#only-light" if scheme == "default" else "#only-dark"
        assert all(src.endswith(wanted) for src in shown), f"{visit.url} ({scheme}) shows {shown}"
        report.count("images checked (light + dark)", len(visit.dom["images"]))


@pytest.mark.parametrize(("lang", "source"), ALL_PAGES, ids=PAGE_IDS)
def test_language_selector_goes_to_the_counterpart(light: dict, server: SiteServer, lang: str, source: str) -> None:
    visit = light[lang, source]
    check_loaded(visit)
    check_language_links(visit, server.root)
    landed = visit.extra.get("language_click")
    assert landed == server.url(page_url(source, other(lang))), f"clicking {other(lang)} on {visit.url} went to {landed}"


@pytest.mark.parametrize("start", LANGUAGES)
def test_language_switch_keeps_the_section(browser, server: SiteServer, start: str) -> None:
    tab = Tab(browser, server, viewport=DESKTOP, color_scheme="light")
    try:
        visit = tab.visit(start, "worked-example.md", "#step-3")
        check_loaded(visit)
        landed = click_language(tab, other(start))
        assert landed == server.url(page_url("worked-example.md", other(start))) + "#step-3"
        tab.page.wait_for_load_state("load")
        tab.settle()
        tab.wait_for_search()  # so that the next visit's navigation cancels none of this page's requests
        # The heading is really there and scrolled to the top of the viewport (below the header).
        top = tab.page.evaluate("() => document.getElementById('step-3').getBoundingClientRect().top")
        assert 0 <= top < 200, f"#step-3 is at {top}px after switching language"
        # Without a hash the link stays as Material wrote it.
        tab.visit(other(start), "worked-example.md")
        assert click_language(tab, start) == server.url(page_url("worked-example.md", start))
        check_network(tab.current)
    finally:
        tab.close()


SEARCHES = [
    # (page language, query, pages that must be among the results)
    ("zh", "注意力", {"intuition.md", "worked-example.md", "motivation.md", "index.md"}),
    ("zh", "缩放", {"why-sqrt-dk.md", "worked-example.md"}),
    ("en", "softmax", {"worked-example.md", "why-sqrt-dk.md", "summary-flow.md"}),
    ("en", "scaling", {"why-sqrt-dk.md", "worked-example.md"}),
    ("zh", "Softmax", {"worked-example.md", "why-sqrt-dk.md"}),
    ("en", "scaling factor", {"why-sqrt-dk.md"}),
]


@pytest.fixture(scope="module")
def search_tab(browser, server: SiteServer):
    tab = Tab(browser, server, viewport=DESKTOP, color_scheme="light")
    yield tab
    tab.close()


@pytest.mark.parametrize(("lang", "query", "expected"), SEARCHES, ids=[f"{lang}-{query}" for lang, query, _ in SEARCHES])
def test_search_finds_the_right_pages(search_tab: Tab, server: SiteServer, report: Report, lang: str, query: str, expected: set[str]) -> None:
    page = search_tab.page
    search_tab.visit(lang, "index.md")
    box = page.locator("input.md-search__input")  # in the header at desktop width
    box.click()
    box.fill(query)
    box.press("End")  # Material reads the query on keyup
    page.wait_for_selector(".md-search-result__item:not([hidden]) a.md-search-result__link", timeout=TIMEOUT_MS)
    # Each language has its own index (qkv_site.search.index): no result of the other language.
    urls = page.eval_on_selector_all(".md-search-result__item:not([hidden]) > a.md-search-result__link", "links => links.map(a => a.href)")
    found = {urlsplit(url).path for url in urls}
    expected_urls = {urlsplit(server.url(page_url(source, lang))).path for source in expected}
    assert found & expected_urls, f"searching {query!r} on a {lang} page found {sorted(found)}, none of {sorted(expected_urls)}"
    english = SUBPATH + page_url("index.md", "en").lstrip("/")
    foreign = sorted(path for path in found if path.startswith(english) != (lang == "en"))
    assert not foreign, f"searching {query!r} on a {lang} page shows pages of the other language: {foreign}"
    check_network(search_tab.current)


@pytest.mark.parametrize(("lang", "source"), FIGURE_PAGES, ids=[f"{lang}-{stem(source)}" for lang, source in FIGURE_PAGES])
def test_palette_toggle_swaps_the_figures(light: dict, lang: str, source: str) -> None:
    visit = light[lang, source]
    check_loaded(visit)
    assert "palette" in visit.extra, f"{visit.url} shows no figure with a dark variant"
    (first, dark_figures), (second, light_figures) = visit.extra["palette"]
    assert (first, second) == ("slate", "default"), f"the toggle went to {first} then {second}"
    for scheme, figures, shown_suffix, hidden_suffix in (("slate", dark_figures, "#only-dark", "#only-light"), ("default", light_figures, "#only-light", "#only-dark")):
        shown = [figure["src"] for figure in figures if figure["shown"]]
        hidden = [figure["src"] for figure in figures if not figure["shown"]]
        assert shown and all(src.endswith(shown_suffix) for src in shown), f"{visit.url} in {scheme} shows {shown}"
        assert all(src.endswith(hidden_suffix) for src in hidden) and len(hidden) == len(shown), f"{visit.url} in {scheme} hides {hidden}"


@pytest.mark.parametrize(("lang", "source"), ALL_PAGES, ids=PAGE_IDS)
def test_accessibility_light(light: dict, lang: str, source: str) -> None:
    visit = light[lang, source]
    check_loaded(visit)
    assert visit.extra["axe"] == [], f"axe on {visit.url} (light):\n" + "\n".join(visit.extra["axe"])


@pytest.mark.parametrize(("lang", "source"), DARK_AXE_PAGES)
def test_accessibility_dark(light: dict, lang: str, source: str) -> None:
    visit = light[lang, source]
    check_loaded(visit)
    assert visit.extra["axe_dark"] == [], f"axe on {visit.url} (dark):\n" + "\n".join(visit.extra["axe_dark"])


@pytest.mark.parametrize(("lang", "source"), ALL_PAGES, ids=PAGE_IDS)
def test_no_horizontal_scrolling_on_a_phone(phone: dict, lang: str, source: str) -> None:
    visit = phone[lang, source]
    check_loaded(visit)
    dom = visit.dom
    assert dom["scrollWidth"] <= dom["innerWidth"], (
        f"{visit.url} is {dom['scrollWidth']}px wide in a {dom['innerWidth']}px viewport; widest offenders:\n"
        + "\n".join(json.dumps(offender, ensure_ascii=False) for offender in visit.extra.get("overflow", []))
    )


@pytest.mark.parametrize(("lang", "source"), ALL_PAGES, ids=PAGE_IDS)
def test_site_works_from_a_sub_path(phone: dict, site: Path, lang: str, source: str) -> None:
    visit = phone[lang, source]
    check_loaded(visit)
    assert urlsplit(visit.url).path.startswith(SUBPATH)
    check_math(visit, site)
    check_network(visit)
    check_images(visit)
    root = visit.url[: visit.url.index(SUBPATH) + len(SUBPATH)]
    check_language_links(visit, root)


# Wide tables: on a 1280 px desktop the complexity table's "n = 4,096, d = 512" column and the
# KV-cache table's "Per token" / "4,096 tokens" columns are in view, and any table still wider than
# its column shows a scroll bar that can be seen and reached by keyboard; so does every table wider
# than a phone.
# (page, a header of the table, the headers that must be in view), per language
NAMED = {
    "zh": [("complexity.md", "乘法次数", ["n = 4,096, d = 512"]), ("beyond-quadratic.md", "头维度", ["每个 Token", "4,096 个 Token"])],
    "en": [("complexity.md", "Multiplications", ["n = 4,096, d = 512"]), ("beyond-quadratic.md", "Head dim", ["Per token", "4,096 tokens"])],
}



def tables_of(visits: dict, lang: str) -> dict[str, list[dict]]:
    """The tables the crawl found on each Markdown page of ``lang``."""
    found = {}
    for (visit_lang, source), visit in visits.items():
        if visit_lang == lang and source.endswith(".md"):
            check_loaded(visit)
            found[source] = visit.extra["tables"]
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_wide_tables_show_every_column_at_1280_px(light: dict, lang: str) -> None:
    tables = tables_of(light, lang)
    for source, marker, wanted in NAMED[lang]:
        table = next((t for t in tables[source] if any(marker in h["text"] for h in t["headers"])), None)
        assert table, f"{source} ({lang}): no table with the header {marker!r}"
        for header in wanted:
            found = [h for h in table["headers"] if h["text"] == header]
            assert found and found[0]["inView"], f"{source} ({lang}): the column {header!r} is not in view at 1280 px"
    check_scroll_bars(tables, lang, DESKTOP)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_table_wider_than_a_phone_shows_its_scroll_bar(phone: dict, lang: str) -> None:
    assert check_scroll_bars(tables_of(phone, lang), lang, MOBILE) >= 3, f"fewer than 3 tables overflow a phone ({lang}): this test checks little"


def check_scroll_bars(tables: dict[str, list[dict]], lang: str, viewport: dict) -> int:
    """Every table wider than its column shows a scroll bar and is a tab stop; return how many do."""
    overflowing = 0
    for source, page_tables in tables.items():
        for table in page_tables:
            if not table["overflows"]:
                continue
            overflowing += 1
            where = f"{source} ({lang}, {viewport['width']} px), the table {table['headers'][0]['text']!r}…"
            assert table["scrollbar"]["width"] != "none" and table["scrollbar"]["thumbAlpha"] >= 0.4, f"{where} scrolls without a visible scroll bar: {table['scrollbar']}"
            assert table["focusable"], f"{where} scrolls but a keyboard cannot reach it"
    return overflowing


def test_screenshots_were_saved(light: dict, screenshots: Path | None) -> None:
    if screenshots is None:
        pytest.skip("QKV_SCREENSHOTS is not set: no screenshots were asked for")
    expected = {f"{lang}-{stem(source)}-{scheme}.png" for lang, source in ALL_PAGES for scheme in ("light", "dark")}
    saved = {path.name for path in screenshots.glob("*.png") if path.stat().st_size > 10_000}
    assert expected <= saved, f"missing screenshots in {screenshots}: {sorted(expected - saved)}"


def test_links_and_anchors_resolve(light: dict, server: SiteServer, site: Path, report: Report) -> None:
    """Every a[href] of every page: internal targets answer 200 and their #anchors exist; external
    links are listed in the summary, never fetched."""
    ids_by_url = {urldefrag(visit.url).url: set(visit.dom["ids"]) for visit in light.values() if visit.dom}
    statuses: dict[str, int] = {}
    broken: list[str] = []
    checked = 0

    def fetch(url: str) -> int:
        if url not in statuses:
            try:
                with urllib.request.urlopen(url, timeout=10) as response:
                    statuses[url] = response.status
                    body = response.read()
                    if url not in ids_by_url and response.headers.get_content_type() == "text/html":
                        ids_by_url[url] = set(re.findall(r'\bid="([^"]+)"', body.decode("utf-8", "replace")))
            except urllib.error.HTTPError as error:
                statuses[url] = error.code
        return statuses[url]

    for visit in light.values():
        check_loaded(visit)
        for link in visit.dom["links"]:
            parts = urlsplit(link["url"])
            if parts.scheme not in ("http", "https"):
                continue
            if parts.netloc != server.host:
                report.external.setdefault(link["url"], set()).add(visit.url)
                continue
            checked += 1
            target, fragment = urldefrag(link["url"])
            status = fetch(target)
            if status == 404 and is_pdf_edition(site, site / unquote(urlsplit(target).path)[len(server.prefix):]):
                continue  # made after the build by python -m qkv_site.tools.pdf; tests/browser/test_pdf.py follows these links
            if status != 200:
                broken.append(f"{visit.url}: {link['href']} → HTTP {status}")
            elif "=" in fragment:
                continue  # not an anchor: the playground keeps its state in the hash (#p=article&t=…)
            elif fragment and unquote(fragment) not in ids_by_url.get(target, set()) and target in ids_by_url:
                broken.append(f"{visit.url}: {link['href']} → no element with id {unquote(fragment)!r}")
    report.count("internal links checked", checked)
    report.count("internal targets fetched", len(statuses))
    assert not broken, "broken internal links:\n" + "\n".join(broken)


# The only files two builds may differ in (everything else must be byte-identical):
REPRODUCIBLE_EXCEPTIONS = {
    "sitemap.xml",  # <lastmod> is the build date (MkDocs writes today's date)
    "sitemap.xml.gz",  # the same, and gzip stores a timestamp in its header
}


def test_two_builds_are_byte_identical(site: Path, second_build) -> None:
    other_site, future = second_build
    result = future.result(timeout=900)
    assert result.returncode == 0, f"the second build failed:\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
    first = {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()}
    second = {path.relative_to(other_site).as_posix() for path in other_site.rglob("*") if path.is_file()}
    assert first == second, f"only in the first build: {sorted(first - second)[:20]}; only in the second: {sorted(second - first)[:20]}"
    differing = [
        name for name in sorted(first)
        if name.rsplit("/", 1)[-1] not in REPRODUCIBLE_EXCEPTIONS and not filecmp.cmp(site / name, other_site / name, shallow=False)
    ]
    assert not differing, f"{len(differing)} files differ between two builds: {differing[:30]}"
