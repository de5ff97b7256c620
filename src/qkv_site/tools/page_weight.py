"""How many bytes a reader downloads for each page, as Chromium requests it: the page read to its end.

A page is opened with nothing cached in one colour scheme and scrolled to its end a window at a time,
so that every part of it, and every lazy figure of the shown scheme, comes on screen; a page's widgets
draw themselves. One tab reads every page (`Reader`): its cache off, as DevTools' "Disable cache" does,
so that every file comes from the server as on a first visit, and its localStorage and sessionStorage
emptied after each page. A new browser context for each page fetches the same files for more than twice
the browser's work
(``tests/browser/test_browser_page_weight.py`` holds the two equal on the learned-attention page read
after the worked example, in both languages). Every file of the site the
browser asked for is then counted at its gzip -9 size (already compressed files, woff and png, as
they are), by category. The sizes are read from the built files, not timed, so a page weighs the
same on every run: ``benchmarks/site_build.py`` prints them beside their targets and budgets, and
``tests/browser/test_browser_page_weight.py`` holds every page to its budget: its target, or, for a page
over its target, what it weighs today.

    from qkv_site.tools.page_weight import measure_site
    weights = measure_site(Path("site"))        # {(source, lang): PageWeight}
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from qkv_site.site_map import SiteMap, load_site_map
from qkv_site.tools.local_browser import SiteServer, launch_chromium

if TYPE_CHECKING:
    from playwright.sync_api import Browser

KB = 1000  # the budgets are in KB of 1,000 bytes
# The targets: every page read to its end at most 150 KB gzip, the worked-example page 100 KB (sources as
# in mkdocs.yml's nav).
DEFAULT_TARGET = 150 * KB
TARGETS = {"worked-example.md": 100 * KB}
# What a page that does not meet its target yet may weigh: what it weighs now (the larger language, with
# the deploy workflow's repository link, rounded up to the next KB), so that it cannot grow unnoticed.
BUDGETS: dict[str, int] = {}  # none today: every page is within its target
CATEGORIES = ("html", "css", "js", "figures", "images", "fonts", "data", "search")
COMPRESSED = {".woff", ".woff2", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico"}
WINDOW = {"width": 1280, "height": 900}

# A reader who reads to the end, a window at a time: each lazy figure is fetched when it comes near; then every image
# shown has arrived and every widget has drawn itself (the learned widget draws its first state from the
# page's numbers: its model comes only when the reader uses it, which this reader does not; the small
# playground of an article page waits behind its "open" button, which this reader does not press).
READ_TO_END_JS = """async () => {
  const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  for (let y = 0; y < document.body.scrollHeight; y += innerHeight) {
    scrollTo(0, y);
    await wait(50);
  }
  scrollTo(0, document.body.scrollHeight);
  await wait(50);
  const shown = [...document.images].filter((image) => image.checkVisibility());
  await Promise.all(shown.map((image) => image.decode().catch(() => null)));
  const start = performance.now();
  const widgets = ":is(.qkv-playground:not([data-qkv-waiting]), .qkv-learned-widget):not([data-qkv-ready])";
  const unready = () => document.querySelectorAll(widgets).length;
  while (unready()) {
    if (performance.now() - start > 60000) throw new Error(`${location.href}: ${unready()} widget(s) not drawn after 60 s`);
    await wait(50);
  }
}"""


def target(source: str) -> int:
    """The bytes (gzip) a page of ``source`` should cost at most a reader who reads it to its end."""
    return TARGETS.get(source, DEFAULT_TARGET)


def budget(source: str) -> int:
    """The most bytes (gzip) a page of ``source`` may cost: its `target`, or its weight today if it is over."""
    return BUDGETS.get(source, target(source))


def category(site_path: str) -> str:
    """What a requested file of the site is, by its path in the site.

    >>> [category(p) for p in ["en/index.html", "figures/a.light.svg", "search/search_index.json",
    ...                        "en/learned-attention/learned-model-referent.json", "assets/x.woff2"]]
    ['html', 'figures', 'search', 'data', 'fonts']
    """
    if site_path.startswith(("search/", "assets/javascripts/workers/", "assets/javascripts/lunr/")) or "/search/" in site_path:
        return "search"
    if site_path.startswith("figures/") or "/figures/" in site_path:
        return "figures"
    suffix = site_path.rsplit(".", 1)[-1].lower()
    if suffix in {"woff", "woff2", "ttf", "otf"}:
        return "fonts"
    if suffix == "json":
        return "data"
    return {"css": "css", "js": "js", "mjs": "js", "html": "html"}.get(suffix, "images")


@cache
def gzip_size(path: Path) -> int:
    """The bytes of ``path`` gzip -9 compressed (a compressed format as it is)."""
    data = path.read_bytes()
    return len(data) if path.suffix.lower() in COMPRESSED else len(gzip.compress(data, 9, mtime=0))


@dataclass(frozen=True)
class PageWeight:
    """The files of the site one page made Chromium request, with their gzip sizes."""

    source: str
    lang: str
    files: dict[str, int] = field(default_factory=dict)  # path in the site -> gzip bytes

    @property
    def total(self) -> int:
        return sum(self.files.values())

    @property
    def budget(self) -> int:
        return budget(self.source)

    @property
    def target(self) -> int:
        return target(self.source)

    def by_category(self) -> dict[str, int]:
        sizes = dict.fromkeys(CATEGORIES, 0)
        for path, size in self.files.items():
            sizes[category(path)] += size
        return sizes

    def as_json(self) -> dict[str, Any]:
        return {"gzip_bytes": self.total, "budget_bytes": self.budget, "target_bytes": self.target,
                "categories": self.by_category(), "files": dict(sorted(self.files.items()))}


def site_files(site: Path, requested: Iterable[str], prefix: str = "/") -> dict[str, int]:
    """The site's files among the ``requested`` URL paths, with their gzip sizes (a folder's index.html)."""
    files = {}
    for url_path in requested:
        relative = unquote(url_path)[len(prefix):]
        path = site / relative
        if path.is_dir() or not relative:
            path = path / "index.html"
        if path.is_file():
            files[path.relative_to(site).as_posix()] = gzip_size(path.resolve())
    return files


class Reader:
    """One tab in ``color_scheme`` that reads page after page as a first visit would: the browser's cache off (every
    file comes from the server again), its localStorage and sessionStorage emptied after each page (where Material
    keeps the reader's choices and what it fetched about the repository)."""

    def __init__(self, browser: Browser, server: SiteServer, site_map: SiteMap, color_scheme: str = "light") -> None:
        self.server, self.site_map = server, site_map
        self.context = browser.new_context(viewport=WINDOW, color_scheme=color_scheme)  # type: ignore[arg-type]
        self.page = self.context.new_page()
        self.requested: list[str] = []
        self.context.on("request", lambda request: self.requested.append(request.url))
        devtools = self.context.new_cdp_session(self.page)
        devtools.send("Network.enable")
        devtools.send("Network.setCacheDisabled", {"cacheDisabled": True})

    def read(self, source: str, lang: str) -> PageWeight:
        """What the page of ``source`` in ``lang`` makes this tab download, read to its end."""
        self.page.goto("about:blank")
        self.requested.clear()
        try:
            self.page.goto(self.server.url(self.site_map.page(source, lang).url), wait_until="load")
            self.page.evaluate(READ_TO_END_JS)
        finally:  # whatever happened, the next page starts with nothing saved by this one
            if self.page.url.startswith(self.server.root):
                self.page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        return _weight(self.server, source, lang, self.requested)

    def close(self) -> None:
        self.context.close()


def measure_page(browser: Browser, server: SiteServer, source: str, lang: str, site_map: SiteMap,
                 color_scheme: str = "light") -> PageWeight:
    """What one page makes a new browser context in ``color_scheme`` download, read to its end (the reference the
    tests hold `Reader` equal to)."""
    requested: list[str] = []
    context = browser.new_context(viewport=WINDOW, color_scheme=color_scheme)  # type: ignore[arg-type]
    try:
        context.on("request", lambda request: requested.append(request.url))
        page = context.new_page()
        page.goto(server.url(site_map.page(source, lang).url), wait_until="load")
        page.evaluate(READ_TO_END_JS)
    finally:
        context.close()
    return _weight(server, source, lang, requested)


def _weight(server: SiteServer, source: str, lang: str, requested: list[str]) -> PageWeight:
    local = [urlsplit(url).path for url in requested if urlsplit(url).netloc == server.host]
    return PageWeight(source, lang, site_files(server.directory, local, server.prefix))


def measure_site(site: Path, config: Path = Path("mkdocs.yml"), color_scheme: str = "light",
                 sources: Iterable[str] | None = None) -> dict[tuple[str, str], PageWeight]:
    """Every page of the nav (or of ``sources``) in every language, each read to its end by one `Reader`."""
    from playwright.sync_api import sync_playwright

    site_map = load_site_map(config)
    weights = {}
    with SiteServer(site) as server, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            reader = Reader(browser, server, site_map, color_scheme)
            for lang in site_map.languages:
                for source in site_map.nav if sources is None else sources:
                    weights[source, lang] = reader.read(source, lang)
        finally:
            browser.close()
    return weights
