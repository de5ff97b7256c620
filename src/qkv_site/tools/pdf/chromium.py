"""Print a print page to PDF with the system's Chromium, driven by Playwright; nothing leaves 127.0.0.1.

The built site is served on an ephemeral port so that the print page loads the site's own stylesheets,
figures, fonts and (when the pages typeset formulas in the browser) MathJax. Printing starts when the
page says it is ready: formulas typeset, fonts loaded, every image decoded; never after a timer.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from qkv_site.tools.local_browser import CHROMIUM, SiteServer, launch_chromium

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Response, Route

# The print page is served from memory at this path; it is never written into the site.
PRINT_PATH = "/pdf-edition/{lang}.html"
# A4 minus the side margins of edition.css (16 mm each), in CSS pixels: the width formulas must fit in.
CONTENT_WIDTH_PX = round((210 - 2 * 16) / 25.4 * 96)
TIMEOUT_MS = 180_000

READY_JS = r"""
async () => {
  if (document.readyState !== "complete") {
    await new Promise((resolve) => addEventListener("load", resolve, {once: true}));
  }
  if (window.MathJax) {
    if (!(MathJax.startup && MathJax.startup.promise)) {
      throw new Error("MathJax is configured but its bundle did not load");
    }
    await MathJax.startup.promise;  // resolves once the first typesetting of the page is done
  }
  await document.fonts.ready;
  await Promise.all([...document.images].map((image) => image.decode().catch(() => null)));
  // A display formula wider than the page is scaled down to fit (the site scrolls it instead).
  for (const formula of document.querySelectorAll("mjx-container[display='true'], .arithmatex > svg")) {
    const room = formula.parentElement.clientWidth, width = formula.scrollWidth;
    if (width > room) formula.style.fontSize = `${Math.floor(100 * room / width)}%`;
  }
  const rawTex = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest("pre, code, script, style, mjx-container, mjx-assistive-mml, math")) continue;
    const match = node.textContent.match(/\$\$|\\\(|\\\[|\\begin\{|\\frac/);
    if (match) rawTex.push(node.textContent.trim().slice(0, 120));
  }
  // Formulas typeset at build time draw their glyphs with <use href="#…">: every one must resolve.
  const missingGlyphs = [...document.querySelectorAll("svg use")]
    .map((use) => use.getAttribute("href") || use.getAttribute("xlink:href") || "")
    .filter((href) => href.startsWith("#") && !document.getElementById(href.slice(1)));
  return {
    missingGlyphs,
    brokenImages: [...document.images].filter((image) => !image.naturalWidth).map((image) => image.src),
    mathErrors: [...document.querySelectorAll("mjx-merror")].map((error) => error.textContent),
    rawTex,
  };
}
"""


class PrintError(RuntimeError):
    """The print page did not come out whole: a formula, an image or a request failed."""


def print_pages(site: Path, pages: dict[str, str], outputs: dict[str, Path], browser: Path = CHROMIUM) -> None:
    """Print each print page of ``pages`` (language → HTML) to ``outputs[language]``."""
    from playwright.sync_api import Error, sync_playwright  # only the PDF needs a browser, not the site

    if not browser.is_file():
        raise FileNotFoundError(f"no browser at {browser}: install Chromium (Debian: apt-get install chromium) or pass --browser")
    with SiteServer(site) as server, sync_playwright() as playwright:
        chromium = launch_chromium(playwright, browser)
        try:
            for lang, html in pages.items():
                try:
                    _print_one(chromium, server, lang, html, outputs[lang])
                except Error:
                    if chromium.is_connected():
                        raise
                    # Chromium itself went away (on a busy machine its process once died between two prints):
                    # a new one prints the page again, once; the checks of the page are the same
                    print(f"Chromium closed while printing the {lang} page: printing it again in a new one", file=sys.stderr)
                    chromium = launch_chromium(playwright, browser)
                    _print_one(chromium, server, lang, html, outputs[lang])
        finally:
            chromium.close()


def _print_one(chromium: Browser, server: SiteServer, lang: str, html: str, output: Path) -> None:
    address = server.url(PRINT_PATH.format(lang=lang))
    problems: list[str] = []

    def route(request_route: Route) -> None:
        request = request_route.request
        if request.url == address:
            request_route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html)
        elif request.url.startswith(server.root):
            request_route.continue_()
        else:  # nothing may come from another host
            problems.append(f"request to another host: {request.url}")
            request_route.abort("blockedbyclient")

    context = chromium.new_context(viewport={"width": CONTENT_WIDTH_PX, "height": 1000}, color_scheme="light")
    context.set_default_timeout(TIMEOUT_MS)
    context.route("**/*", route)
    page = context.new_page()
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    page.on("requestfailed", lambda request: problems.append(f"failed: {request.url} ({request.failure})"))
    def bad_status(response: Response) -> None:
        if response.status >= 400:
            problems.append(f"HTTP {response.status}: {response.url}")

    page.on("response", bad_status)
    try:
        page.emulate_media(media="print")
        page.goto(address, wait_until="load")
        ready = page.evaluate(READY_JS)
        problems += [f"image did not load: {src}" for src in ready["brokenImages"]]
        problems += [f"formula error: {text}" for text in ready["mathErrors"]]
        problems += [f"an SVG refers to a missing element: {href}" for href in ready["missingGlyphs"][:5]]
        problems += [f"raw TeX after typesetting: {text!r}" for text in ready["rawTex"]]
        if problems:
            raise PrintError(f"the {lang} print page is not whole ({urlsplit(address).path}):\n" + "\n".join(problems[:20]))
        output.parent.mkdir(parents=True, exist_ok=True)
        page.pdf(path=str(output), prefer_css_page_size=True, print_background=True, outline=True, tagged=True)
    finally:
        context.close()
