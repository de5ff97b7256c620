"""Figures open large (docs/assets/javascripts/figure-zoom.js): by click, tap or keyboard, in the
variant of the current colour scheme, several times wider than on the page on a phone, and closed by
Escape with the focus back on the figure. Served from the site itself (no request elsewhere)."""

from __future__ import annotations


import pytest

from browser_support import LocalOnly, SiteServer
from site_pages import page_url

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 812}
CASES = [
    ("zh", "light", DESKTOP, "click"),
    ("en", "dark", DESKTOP, "keyboard"),
    ("zh", "dark", PHONE, "tap"),
    ("en", "light", PHONE, "tap"),
]

SHOWN_FIGURE_JS = """() => {
  const img = [...document.querySelectorAll("article figure img")].find((img) => img.checkVisibility());
  const box = img.getBoundingClientRect();
  return {src: img.currentSrc, width: box.width, label: img.getAttribute("aria-label"), role: img.getAttribute("role")};
}"""

ZOOMED_JS = """() => {
  const dialog = document.querySelector("dialog.qkv-zoom");
  const img = dialog.querySelector("img");
  return {open: dialog.open, src: img.currentSrc, width: img.getBoundingClientRect().width,
          natural: img.naturalWidth, background: getComputedStyle(dialog).backgroundColor,
          bodyBackground: getComputedStyle(document.body).backgroundColor};
}"""


@pytest.mark.parametrize(("lang", "scheme", "viewport", "how"), CASES, ids=[f"{lang}-{scheme}-{viewport['width']}px-{how}" for lang, scheme, viewport, how in CASES])
def test_a_figure_opens_large(browser, server: SiteServer, lang: str, scheme: str, viewport: dict, how: str) -> None:
    phone = viewport is PHONE
    with LocalOnly(browser, server, viewport=viewport, color_scheme=scheme, has_touch=phone, is_mobile=phone) as tab:
        page = tab.page
        tab.open(page_url("worked-example.md", lang))
        # Figures are lazy (only the shown scheme's is fetched): the reader scrolls to it first.
        page.evaluate("() => [...document.querySelectorAll('article figure img')].find((img) => img.checkVisibility()).scrollIntoView()")
        page.wait_for_function("() => [...document.querySelectorAll('article figure img')].some((img) => img.checkVisibility() && img.complete && img.naturalWidth > 0)")
        figure = page.evaluate(SHOWN_FIGURE_JS)
        variant = "#only-dark" if scheme == "dark" else "#only-light"
        assert figure["src"].endswith(variant.replace("#only-", ".") + ".svg") or variant in figure["src"], figure
        assert figure["role"] == "button" and figure["label"], f"the figure is not announced as something to press: {figure}"
        shown = page.locator("article figure img:visible").first
        if how == "click":
            shown.click()
        elif how == "tap":
            shown.tap()
        else:
            shown.focus()
            page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelector('dialog.qkv-zoom').open")
        page.wait_for_function("() => document.querySelector('dialog.qkv-zoom img').complete")
        zoomed = page.evaluate(ZOOMED_JS)
        assert zoomed["src"] == figure["src"], f"the dialog shows {zoomed['src']}, the page showed {figure['src']}"
        assert zoomed["natural"] > 0, "the enlarged figure did not load"
        assert zoomed["background"] == zoomed["bodyBackground"], f"the dialog is {zoomed['background']} on a {zoomed['bodyBackground']} page"
        wanted = 2.4 * figure["width"] if phone else min(viewport["width"] - 40, 2 * figure["width"])
        assert zoomed["width"] >= wanted, f"enlarged to {zoomed['width']:.0f} px from {figure['width']:.0f} px (wanted ≥ {wanted:.0f})"
        page.keyboard.press("Escape")
        page.wait_for_function("() => !document.querySelector('dialog.qkv-zoom').open")
        focused = page.evaluate("() => document.activeElement && document.activeElement.currentSrc")
        assert focused == figure["src"], f"after closing, the focus is on {focused}, not on the figure"
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"
