"""Printing the PDF edition (qkv_site.tools.pdf.chromium.print_pages) when Chromium itself goes away."""

from __future__ import annotations

import contextlib
from pathlib import Path

import playwright.sync_api
import pytest
from playwright.sync_api import Error

from qkv_site.tools.pdf import chromium as printing


class FakeBrowser:
    def __init__(self, name: str) -> None:
        self.name, self.connected, self.closed = name, True, False

    def is_connected(self) -> bool:
        return self.connected

    def close(self) -> None:
        self.closed = True


def run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fail) -> tuple[list[tuple[str, str]], list[FakeBrowser]]:  # type: ignore[no-untyped-def]
    """print_pages on two languages with fake browsers; `fail(browser, lang)` may make a print fail."""
    launched: list[FakeBrowser] = []
    printed: list[tuple[str, str]] = []

    def launch(playwright, executable):  # type: ignore[no-untyped-def]
        launched.append(FakeBrowser(f"chromium {len(launched) + 1}"))
        return launched[-1]

    def print_one(browser, server, lang, html, output):  # type: ignore[no-untyped-def]
        fail(browser, lang)
        printed.append((browser.name, lang))

    monkeypatch.setattr(printing, "launch_chromium", launch)
    monkeypatch.setattr(printing, "_print_one", print_one)
    # no Playwright of its own: the worker's session may already run one (the browser tests'), and the fakes need none
    monkeypatch.setattr(playwright.sync_api, "sync_playwright", contextlib.nullcontext)
    executable = tmp_path / "chromium"
    executable.write_text("")
    printing.print_pages(tmp_path, {"zh": "<p>zh</p>", "en": "<p>en</p>"},
                         {"zh": tmp_path / "zh.pdf", "en": tmp_path / "en.pdf"}, executable)
    return printed, launched


def test_a_browser_that_died_is_replaced_and_the_page_printed_again_once(monkeypatch, tmp_path: Path) -> None:
    def die_once(browser: FakeBrowser, lang: str) -> None:
        if browser.name == "chromium 1" and lang == "en":
            browser.connected = False
            raise Error("Target page, context or browser has been closed")

    printed, launched = run(monkeypatch, tmp_path, die_once)
    assert printed == [("chromium 1", "zh"), ("chromium 2", "en")]
    assert [b.closed for b in launched] == [False, True]  # the new one is closed at the end


def test_a_print_that_fails_with_the_browser_alive_is_not_tried_again(monkeypatch, tmp_path: Path) -> None:
    def fail(browser: FakeBrowser, lang: str) -> None:
        if lang == "en":
            raise Error("net::ERR_CONNECTION_REFUSED")

    with pytest.raises(Error, match="ERR_CONNECTION_REFUSED"):
        run(monkeypatch, tmp_path, fail)


def test_a_browser_that_dies_twice_fails_the_print(monkeypatch, tmp_path: Path) -> None:
    def die(browser: FakeBrowser, lang: str) -> None:
        if lang == "en":
            browser.connected = False
            raise Error("Target page, context or browser has been closed")

    with pytest.raises(Error, match="has been closed"):
        run(monkeypatch, tmp_path, die)
