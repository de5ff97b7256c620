"""Helpers for the browser tests: serve a built site on 127.0.0.1 and launch the system's Chromium.

Nothing here downloads a browser: Playwright drives Debian's ``/usr/bin/chromium``.
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

CHROMIUM = Path("/usr/bin/chromium")
INSTALL_HINT = "sudo apt-get install chromium fonts-noto-cjk"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def browser_unavailable() -> str | None:
    """Why the browser tests cannot run here (``None`` when they can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return 'the playwright package is missing; install it with: pip install -e ".[test]" (and the browser with: ' + INSTALL_HINT + ")"
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        return f"no Chromium at {CHROMIUM}; install it with: {INSTALL_HINT}"
    return None


def launch(playwright):
    """The system's Chromium, headless, with nothing that phones home."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serve the site directory under ``prefix`` (``/`` or ``/repo/``); anything else is a 404."""

    prefix = "/"

    def translate_path(self, path: str) -> str:
        path = unquote(urlsplit(path).path)
        if not path.startswith(self.prefix):
            return os.path.join(self.directory, "\0outside-the-prefix")  # never exists → 404
        return super().translate_path("/" + path[len(self.prefix):])

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass


class SiteServer:
    """A ``ThreadingHTTPServer`` on an ephemeral port of 127.0.0.1, in a daemon thread."""

    def __init__(self, directory: Path, prefix: str = "/") -> None:
        assert prefix.startswith("/") and prefix.endswith("/"), prefix
        handler = type("Handler", (_QuietHandler,), {"prefix": prefix})
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
        self.httpd.daemon_threads = True
        self.directory = Path(directory)
        self.host = f"127.0.0.1:{self.httpd.server_address[1]}"
        self.root = f"http://{self.host}{prefix}"
        self.prefix = prefix
        self.thread = threading.Thread(target=self.httpd.serve_forever, name=f"site-server{prefix}", daemon=True)

    def url(self, site_path: str) -> str:
        """The absolute URL of a site-relative path (``/en/worked-example/`` → http://…/prefix/en/worked-example/)."""
        return self.root + site_path.lstrip("/")

    def __enter__(self) -> SiteServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# What a page needs before it is looked at: the fonts are in (formulas are typeset when the site is
# built; the wait is for a condition, the time limit only keeps a broken page from hanging the run).
READY_JS = """async () => {
  const limit = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  await Promise.race([document.fonts.ready, limit(10000)]);
}"""


class LocalOnly:
    """A browser context whose requests to any host but ``server`` are aborted and listed in ``foreign``."""

    def __init__(self, browser, server: SiteServer, **options) -> None:
        self.server = server
        self.foreign: list[str] = []
        self.context = browser.new_context(**options)
        self.context.set_default_timeout(20_000)
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
