"""Helpers for the browser tests, on top of qkv_site.tools.local_browser (the site on 127.0.0.1, Debian's
Chromium): whether a browser is there, a tab that may only talk to the local site, a page's readiness."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from urllib.parse import urlsplit

from qkv_site.tools.local_browser import CHROMIUM, SiteServer
from qkv_site.tools.local_browser import launch_chromium as launch

INSTALL_HINT = "sudo apt-get install chromium fonts-noto-cjk"
__all__ = ["CHROMIUM", "CLIPBOARD", "CPU_SLOWDOWN", "DESKTOP", "PHONE", "READY_JS", "TIMEOUT_MS", "WAIT_MS", "LocalOnly", "SiteServer", "Tabs",
           "browser_unavailable", "click_in_place", "launch", "wait_until"]

# The two windows every browser test looks through: a laptop, and a phone (an iPhone's CSS pixels).
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 812}
# QKV_CPU_SLOWDOWN=4 runs every tab's page four times slower (Chromium's CPU throttling, as a slow
# phone would): a race between the page's scripts that a fast machine always wins shows up there.
CPU_SLOWDOWN = float(os.environ.get("QKV_CPU_SLOWDOWN", "1"))
TIMEOUT_MS = round(20_000 * CPU_SLOWDOWN)  # Playwright's own wait for one action (a click, a selector) before it fails
# The cap of every wait for a condition (`wait_until`): it only stops a hang, the waits are for conditions.
WAIT_MS = round(60_000 * CPU_SLOWDOWN)
CLIPBOARD = ["clipboard-read", "clipboard-write"]  # for a tab whose test copies a link and reads it back


def browser_unavailable() -> str | None:
    """Why the browser tests cannot run here (``None`` when they can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return 'the playwright package is missing; install it with: pip install -e ".[test]" (and the browser with: ' + INSTALL_HINT + ")"
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        return f"no Chromium at {CHROMIUM}; install it with: {INSTALL_HINT}"
    return None


# What a page needs before it is looked at: the fonts are in (formulas are typeset when the site is
# built). The wait is for a condition; reaching the time limit is a failure that says what it waited for.
READY_JS = """async () => {
  const limit = (ms) => new Promise((resolve) => setTimeout(() => resolve("timeout"), ms));
  if (await Promise.race([document.fonts.ready, limit(60000)]) === "timeout") {
    throw new Error(`${location.href}: document.fonts.ready not settled after 60 s`);
  }
  // the page's own widgets (the playground, the learned model) are imported after load: wait until each has drawn itself
  // (a small playground waiting behind its "open" button is ready as it is)
  const unready = () => document.querySelectorAll(":is(.qkv-playground:not([data-qkv-waiting]), .qkv-learned-widget):not([data-qkv-ready])").length;
  const start = performance.now();
  while (unready()) {
    if (performance.now() - start > 60000) throw new Error(`${location.href}: ${unready()} widget(s) not drawn after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}"""


def wait_until(page, js: str, what: str, arg=None, polling="raf") -> None:  # type: ignore[no-untyped-def]
    """Wait for the JavaScript condition ``js`` to hold on ``page``; at the cap (``WAIT_MS``, which grows with
    QKV_CPU_SLOWDOWN), fail naming what was waited for."""
    import pytest
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(js, arg=arg, polling=polling, timeout=WAIT_MS)
    except PlaywrightTimeout:
        pytest.fail(f"waited {WAIT_MS // 1000} s for {what}, in vain ({page.url})", pytrace=False)


def click_in_place(page, selector: str) -> None:
    """Click what ``selector`` finds with the mouse, where it is on the screen. Playwright's own click
    first scrolls the element into view, and for a link of the language menu in Material's sticky
    header that moved the page by a few dozen pixels, which changes the section the switch keeps
    (docs/assets/javascripts/language-switch.js reads it from where the headings are)."""
    box = page.locator(selector).bounding_box()
    assert box, f"{selector} is not on the screen"
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


class LocalOnly:
    """A browser context and one page in it, whose requests to any host but ``server`` are aborted and
    listed in ``foreign``: the tab every browser test uses (the crawl's `Tab` in test_browser.py adds
    what it records of each visit)."""

    def __init__(self, browser, server: SiteServer, **options) -> None:
        self.server = server
        self.options = options
        self.foreign: list[str] = []
        self.listeners: list[tuple[str, object]] = []  # what a test added with listen(): reset() removes it
        self.context = browser.new_context(**options)
        self.context.set_default_timeout(TIMEOUT_MS)
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        if CPU_SLOWDOWN > 1:  # the session holds the setting: it stays open as long as the tab
            self.slowdown = self.context.new_cdp_session(self.page)
            self.slowdown.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})

    def listen(self, event: str, handler) -> None:
        """``page.on(event, handler)`` for one test: `reset` removes it."""
        self.page.on(event, handler)
        self.listeners.append((event, handler))

    def reset(self) -> None:
        """Leave the tab as a new one would be for the next test (`Tabs`): the test's listeners and its
        routes (``page.route``: a file held back or answered by the test) removed, the site's storage
        (Material's palette and tabs, the clipboard) emptied, the media emulation and the pointer back
        to where a new page has them, an empty document on display."""
        for event, handler in self.listeners:
            self.page.remove_listener(event, handler)
        self.listeners.clear()
        self.page.unroute_all(behavior="ignoreErrors")  # the tab's own filter, LocalOnly._route, is the context's
        if self.page.url.startswith(self.server.root):
            clipboard = "navigator.clipboard.writeText('')" if "clipboard-write" in self.options.get("permissions", ()) else "null"
            self.page.evaluate(f"async () => {{ localStorage.clear(); sessionStorage.clear(); await {clipboard}; }}")
        self.page.emulate_media(media="null", color_scheme=self.options.get("color_scheme", "light"))
        self.page.mouse.move(0, 0)
        self.page.goto("about:blank")
        self.foreign.clear()

    def _route(self, route) -> None:
        if urlsplit(route.request.url).netloc == self.server.host:
            route.continue_()
        else:
            self.foreign.append(route.request.url)
            route.abort("blockedbyclient")

    def open(self, site_path: str) -> None:
        """Load a site page (``/en/worked-example/``, with an optional ``#hash``) and wait until it is ready."""
        self.page.goto(self.server.url(site_path), wait_until="load")
        self.page.evaluate(READY_JS)

    def __enter__(self) -> LocalOnly:
        return self

    def __exit__(self, *exc) -> None:
        self.context.close()


# A borrowed tab's viewport is set on its page, not its context, so that tests that differ only in it share one
# tab; without one, a new context's default. The page's screen then takes the viewport's size, as in a context given
# a viewport and no screen. The colour scheme stays the context's (a tab per scheme): shared by both schemes, a tab
# once showed a page in the scheme of the test before it.
DEFAULT_VIEWPORT = {"width": 1280, "height": 720}


class Tabs:
    """The tabs of one test process, one per set of context options, each reused test after test.

    A new browser context costs Chromium a renderer process and a cold start of every page it
    loads: about 1.9 CPU seconds a page on the test machines, against 0.7 s for a page loaded in
    a tab that has loaded one before. So a test borrows a tab with `open` and gives it back reset
    (`LocalOnly.reset`): what it sees is what a new tab shows. A test that counts what a page
    downloads, or that needs a browser with nothing in its cache, makes its own `LocalOnly`. The viewport
    is set on the borrowed tab's page, so tests that differ only in it share one tab.
    """

    def __init__(self, browser) -> None:
        self.browser = browser
        self.tabs: dict[str, LocalOnly] = {}

    @contextlib.contextmanager
    def open(self, server: SiteServer, **options) -> Iterator[LocalOnly]:
        assert not {"screen", "no_viewport"} & options.keys(), "a borrowed tab's screen is its viewport"
        viewport = options.pop("viewport", DEFAULT_VIEWPORT)
        key = repr(sorted(options.items()))
        tab = self.tabs.pop(key, None)
        if tab is None:
            tab = LocalOnly(self.browser, server, **options)
        tab.server = server
        tab.page.set_viewport_size(viewport)
        try:
            yield tab
            tab.reset()
        except BaseException:
            tab.context.close()  # after a failure, the next test gets a new tab
            raise
        self.tabs[key] = tab

    def close(self) -> None:
        for tab in self.tabs.values():
            tab.context.close()
        self.tabs.clear()
