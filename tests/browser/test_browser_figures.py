"""Figures open large (docs/assets/javascripts/figure-zoom.js): by click, tap or keyboard, in the
variant of the current colour scheme, first as large as the whole figure fits the window (at that
size from the first frame the dialog is drawn), with a close button that is a full-size target beside
the figure, not on it; on a phone a tap on the picture (or its "Enlarge" button) then shows it several
times wider than on the page, keeping the point tapped where it was, and back; closed by Escape with
the focus back on the figure. Served from the site itself (no request elsewhere)."""

from __future__ import annotations

import pytest
from browser_support import DESKTOP, PHONE, SiteServer
from site_pages import page_url

# (language, scheme, window, how it is opened, page, which figure: its file name starts so)
CASES = [
    ("zh", "light", DESKTOP, "click", "worked-example.md", ""),
    ("en", "dark", DESKTOP, "keyboard", "worked-example.md", ""),
    ("en", "light", DESKTOP, "click", "why-sqrt-dk.md", "softmax_saturation"),  # taller than wide
    ("zh", "dark", PHONE, "tap", "worked-example.md", ""),
    ("en", "light", PHONE, "tap", "worked-example.md", ""),
    ("zh", "light", PHONE, "tap", "why-sqrt-dk.md", "softmax_saturation"),
]
TARGET = 44  # px: WCAG 2.5.5's target size for the close button

SHOWN_FIGURE_JS = """(name) => {
  const img = [...document.querySelectorAll(`article figure img[src*="figures/${name}"]`)].find((img) => img.checkVisibility());
  const box = img.getBoundingClientRect();
  return {src: img.currentSrc, width: box.width, label: img.getAttribute("aria-label"), role: img.getAttribute("role")};
}"""

# Notes the enlarged figure's box at the moment the dialog opens, before the page draws it or the
# picture's load event runs: the reader's first frame must already have the figure's final size.
FIRST_FRAME_JS = """() => {
  const dialog = document.querySelector("dialog.qkv-zoom");
  window.qkvFirstFrame = null;
  new MutationObserver((records, observer) => {
    if (!dialog.open) return;
    const box = dialog.querySelector("img").getBoundingClientRect();
    window.qkvFirstFrame = {width: box.width, height: box.height};
    observer.disconnect();
  }).observe(dialog, {attributes: true, attributeFilter: ["open"]});
}"""

ZOOMED_JS = """() => {
  const dialog = document.querySelector("dialog.qkv-zoom");
  const img = dialog.querySelector("img");
  const box = img.getBoundingClientRect();
  const close = dialog.querySelector("button.qkv-zoom__close").getBoundingClientRect();
  return {open: dialog.open, src: img.currentSrc, width: box.width,
          natural: img.naturalWidth, background: getComputedStyle(dialog).backgroundColor,
          bodyBackground: getComputedStyle(document.body).backgroundColor,
          image: {left: box.left, top: box.top, right: box.right, bottom: box.bottom, width: box.width, height: box.height},
          close: {left: close.left, top: close.top, right: close.right, bottom: close.bottom, width: close.width, height: close.height},
          window: {width: document.documentElement.clientWidth, height: document.documentElement.clientHeight}};
}"""


# The point of the picture under (x, y) of the window, as fractions of its width and height, and its width.
POINT_JS = """([x, y]) => { const box = document.querySelector("dialog.qkv-zoom img").getBoundingClientRect();
                           return [(x - box.left) / box.width, (y - box.top) / box.height, box.width]; }"""


def enlarge_on_a_phone(page, inline_width: float) -> None:
    """A tap on the fitted picture enlarges it several times wider than on the page, with the point
    tapped still under the finger; the "Enlarge" button, pressed again, fits it back in the window."""
    box = page.locator("dialog.qkv-zoom img").bounding_box()
    x, y = box["x"] + 0.7 * box["width"], box["y"] + 0.4 * box["height"]
    before = page.evaluate(POINT_JS, [x, y])
    page.touchscreen.tap(x, y)
    page.wait_for_function("() => document.querySelector('dialog.qkv-zoom').hasAttribute('data-enlarged')")
    after = page.evaluate(POINT_JS, [x, y])
    assert after[2] >= 2.4 * inline_width, f"enlarged to {after[2]:.0f} px from {inline_width:.0f} px on the page"
    assert abs(after[0] - before[0]) < 0.02 and abs(after[1] - before[1]) < 0.02, (
        f"the point tapped moved from {before[:2]} to {after[:2]} of the picture")
    toggle = page.locator("dialog.qkv-zoom button.qkv-zoom__enlarge")
    assert toggle.get_attribute("aria-pressed") == "true"
    shown = toggle.bounding_box()
    assert shown and shown["width"] >= TARGET and shown["height"] >= TARGET, f"the enlarge button is {shown}"
    toggle.tap()
    page.wait_for_function("() => !document.querySelector('dialog.qkv-zoom').hasAttribute('data-enlarged')")
    assert page.evaluate(POINT_JS, [0, 0])[2] < after[2] / 2, "the enlarge button did not fit the figure back in the window"
    assert toggle.get_attribute("aria-pressed") == "false"


@pytest.mark.parametrize(("lang", "scheme", "viewport", "how", "source", "name"), CASES,
                         ids=[f"{lang}-{scheme}-{viewport['width']}px-{how}-{name or source}" for lang, scheme, viewport, how, source, name in CASES])
def test_a_figure_opens_large(tabs, server: SiteServer, lang: str, scheme: str, viewport: dict, how: str, source: str, name: str) -> None:
    phone = viewport is PHONE
    with tabs.open(server, viewport=viewport, color_scheme=scheme, has_touch=phone, is_mobile=phone) as tab:
        page = tab.page
        tab.open(page_url(source, lang))
        # Figures are lazy (only the shown scheme's is fetched): the reader scrolls to it first.
        shown = f"[...document.querySelectorAll('article figure img[src*=\"figures/{name}\"]')]"
        page.evaluate(f"() => {shown}.find((img) => img.checkVisibility()).scrollIntoView()")
        page.wait_for_function(f"() => {shown}.some((img) => img.checkVisibility() && img.complete && img.naturalWidth > 0)")
        figure = page.evaluate(SHOWN_FIGURE_JS, name)
        variant = "#only-dark" if scheme == "dark" else "#only-light"
        assert figure["src"].endswith(variant.replace("#only-", ".") + ".svg") or variant in figure["src"], figure
        assert figure["role"] == "button" and figure["label"], f"the figure is not announced as something to press: {figure}"
        shown = page.locator(f'article figure img[src*="figures/{name}"]:visible').first
        page.evaluate(FIRST_FRAME_JS)
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
        image, close, window = zoomed["image"], zoomed["close"], zoomed["window"]
        first = page.evaluate("() => window.qkvFirstFrame")
        assert first and abs(first["width"] - image["width"]) < 0.5 and abs(first["height"] - image["height"]) < 0.5, (
            f"the enlarged figure opened at {first} and then became {zoomed['width']:.1f}×{image['height']:.1f} px")
        # first the whole figure in the window, as large as it fits there, and at least as large as on the page
        assert image["left"] >= -0.5 and image["top"] >= -0.5 and image["right"] <= window["width"] + 0.5 and image["bottom"] <= window["height"] + 0.5, (
            f"the enlarged figure {image} does not fit the {window['width']}×{window['height']} window")
        room = window["height"] - image["top"]
        assert zoomed["width"] >= window["width"] - 2 or image["height"] >= room - 2, (
            f"the enlarged figure is {zoomed['width']:.0f}×{image['height']:.0f} px; it could be "
            f"{window['width']} px wide or {room:.0f} px high")
        assert zoomed["width"] >= figure["width"] - 0.5, f"enlarged to {zoomed['width']:.0f} px from {figure['width']:.0f} px"
        assert close["width"] >= TARGET and close["height"] >= TARGET, f"the close button is {close['width']:.0f}×{close['height']:.0f} px"
        apart = close["bottom"] <= image["top"] + 0.5 or close["top"] >= image["bottom"] - 0.5 or close["right"] <= image["left"] + 0.5 or close["left"] >= image["right"] - 0.5
        assert apart, f"the close button {close} covers the figure {image}"
        if phone:
            enlarge_on_a_phone(page, figure["width"])
        page.keyboard.press("Escape")
        page.wait_for_function("() => !document.querySelector('dialog.qkv-zoom').open")
        focused = page.evaluate("() => document.activeElement && document.activeElement.currentSrc")
        assert focused == figure["src"], f"after closing, the focus is on {focused}, not on the figure"
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"
