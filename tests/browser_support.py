"""Helpers for the browser tests, on top of qkv_site.tools.local_browser (the site on 127.0.0.1, Debian's
Chromium): whether a browser is there, a tab that may only talk to the local site, a page's readiness."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from qkv_site.tools.local_browser import CHROMIUM, SiteServer
from qkv_site.tools.local_browser import launch_chromium as launch

INSTALL_HINT = "sudo apt-get install chromium fonts-noto-cjk"
__all__ = ["CHROMIUM", "DESKTOP", "PHONE", "READY_JS", "TIMEOUT_MS", "LocalOnly", "SiteServer", "browser_unavailable", "launch"]

# The two windows every browser test looks through: a laptop, and a phone (an iPhone's CSS pixels).
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 812}
TIMEOUT_MS = 20_000  # Playwright's own wait for one action (a click, a selector) before it fails


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
}"""


class LocalOnly:
    """A browser context and one page in it, whose requests to any host but ``server`` are aborted and
    listed in ``foreign``: the tab every browser test uses (the crawl's `Tab` in test_browser.py adds
    what it records of each visit)."""

    def __init__(self, browser, server: SiteServer, **options) -> None:
        self.server = server
        self.foreign: list[str] = []
        self.context = browser.new_context(**options)
        self.context.set_default_timeout(TIMEOUT_MS)
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()

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
