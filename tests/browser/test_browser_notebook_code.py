"""Notebook code on a 375 px phone keeps its lines: a long line scrolls inside its cell (which a
keyboard can reach) instead of wrapping in the middle of a name or a number."""

from __future__ import annotations

import pytest
from browser_support import PHONE, SiteServer
from site_pages import page_url

# Each code cell: its source lines, the lines it takes on screen, whether it scrolls and can be focused.
CELLS_JS = r"""() => [...document.querySelectorAll(".jupyter-wrapper .highlight-ipynb pre")].map((pre) => {
  const style = getComputedStyle(pre);
  const lineHeight = parseFloat(style.lineHeight);
  const content = pre.scrollHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  return {
    text: pre.textContent.slice(0, 60),
    sourceLines: pre.textContent.replace(/\n+$/, "").split("\n").length,
    screenLines: Math.round(content / lineHeight),
    scrolls: pre.scrollWidth > pre.clientWidth,
    focusable: pre.tabIndex >= 0,
    whiteSpace: style.whiteSpace,
  };
})"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_notebook_code_does_not_wrap_on_a_phone(tabs, server: SiteServer, lang: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    with tabs.open(server, viewport=PHONE, color_scheme="light", has_touch=True) as tab:
        tab.open(page_url("notebook.ipynb", lang))
        tab.page.wait_for_function("() => document.readyState === 'complete'")
        cells = tab.page.evaluate(CELLS_JS)
        assert len(cells) >= 5, f"only {len(cells)} code cells found on the {lang} notebook"
        wrapped = [cell for cell in cells if cell["screenLines"] > cell["sourceLines"]]
        assert not wrapped, f"code cells that wrap on a phone ({lang}): {wrapped[:3]}"
        assert any(cell["scrolls"] for cell in cells), f"no cell is wider than a phone ({lang}): this test checks nothing"
        unreachable = [cell["text"] for cell in cells if cell["scrolls"] and not cell["focusable"]]
        assert not unreachable, f"cells that scroll but a keyboard cannot reach ({lang}): {unreachable}"
        results = Axe().run(tab.page, options={"runOnly": ["scrollable-region-focusable"]})
        nodes = [node["target"] for violation in results.response["violations"] for node in violation["nodes"]]
        assert not nodes, f"axe scrollable-region-focusable on the {lang} notebook: {nodes[:5]}"
