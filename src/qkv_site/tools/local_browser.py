"""The built site on 127.0.0.1 and Debian's Chromium to look at it: what the PDF edition and the browser tests share.

Nothing here downloads a browser: Playwright drives ``/usr/bin/chromium`` (``apt-get install chromium``).
"""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

CHROMIUM = Path("/usr/bin/chromium")
# Headless in a container, and nothing that phones home.
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


def launch_chromium(playwright: Playwright, executable: Path = CHROMIUM) -> Browser:
    """The system's Chromium, headless."""
    return playwright.chromium.launch(executable_path=str(executable), args=LAUNCH_ARGS, headless=True)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serve the site directory under ``prefix`` (``/`` or ``/repo/``); anything else is a 404. A
    missing file under the prefix gets the site's own 404.html (with status 404), as GitHub Pages
    serves a site's 404 page for every address it does not have."""

    prefix = "/"

    def send_head(self):  # type: ignore[no-untyped-def]
        if not unquote(urlsplit(self.path).path).startswith(self.prefix):
            self.send_error(404, "outside the site's prefix")
            return None
        return super().send_head()

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or message == "outside the site's prefix" or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404, message)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def translate_path(self, path: str) -> str:
        path = unquote(urlsplit(path).path)
        return super().translate_path("/" + path[len(self.prefix):])

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that stops a download halfway (it navigated away) is no error; anything else is printed."""
        if not isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipeError, ConnectionResetError
            super().handle_error(request, client_address)


class SiteServer:
    """A built site served on an ephemeral port of 127.0.0.1 under ``prefix``, in a daemon thread.

    The thread looks for the signal to stop every `POLL_SECONDS`: with the standard library's 0.5 s, every
    stop (the end of a PDF edition's prints, of a test that serves a page) waited up to half a second."""

    POLL_SECONDS = 0.02

    def __init__(self, directory: Path, prefix: str = "/") -> None:
        assert prefix.startswith("/") and prefix.endswith("/"), prefix
        handler = type("Handler", (_QuietHandler,), {"prefix": prefix})
        self.httpd = _Server(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
        self.directory = Path(directory)
        self.host = f"127.0.0.1:{self.httpd.server_address[1]}"
        self.root = f"http://{self.host}{prefix}"
        self.prefix = prefix
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(self.POLL_SECONDS,), name=f"site-server{prefix}",
                                       daemon=True)

    def url(self, site_path: str) -> str:
        """The absolute URL of a site-relative path (``/en/worked-example/`` → http://…/prefix/en/worked-example/)."""
        return self.root + site_path.lstrip("/")

    def __enter__(self) -> SiteServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
