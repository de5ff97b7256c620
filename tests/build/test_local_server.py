"""The local server the PDF edition and the browser tests look at the site through
(qkv_site.tools.local_browser.SiteServer): the site under its prefix, nothing else, and quiet when a
browser stops a download halfway."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest

from qkv_site.tools.local_browser import SiteServer


def test_the_site_is_served_under_its_prefix_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "index.html").write_text("<p>the page</p>", encoding="utf-8")
    with SiteServer(tmp_path, "/qkv-site/") as server:
        with urllib.request.urlopen(server.url("/en/")) as response:
            assert response.read() == b"<p>the page</p>"
        with pytest.raises(urllib.error.HTTPError) as outside:
            urllib.request.urlopen(f"http://{server.host}/en/")
        assert outside.value.code == 404


@pytest.mark.parametrize("stopped", [BrokenPipeError, ConnectionResetError])
def test_a_download_the_browser_stopped_prints_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str], stopped: type[OSError]) -> None:
    # Chromium drops a request when a test navigates away before a file has arrived; the server's
    # thread then writes into a closed socket. That is no error, and must not bury the test report.
    with SiteServer(tmp_path) as server:
        try:
            raise stopped
        except OSError:
            server.httpd.handle_error(None, ("127.0.0.1", 1))
        assert capsys.readouterr().err == ""
        try:
            raise ValueError("a real fault in the handler")
        except ValueError:
            server.httpd.handle_error(None, ("127.0.0.1", 1))
        assert "a real fault in the handler" in capsys.readouterr().err
