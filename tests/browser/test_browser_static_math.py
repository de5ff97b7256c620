"""Formulas are typeset when the site is built: every page shows them with JavaScript turned off.

One crawl of every page in both languages with JavaScript disabled: no raw TeX in the visible text
(article, navigation, tables of contents; tests/site/test_site_html.py reads <title>), and as many drawn
formulas as the page's sources hold.
Then, with JavaScript on, on the worked example: formulas take the text colour of both schemes, grow
with the font size, are no tab stops; on a 375 px phone inline formulas stay on the text's line
(the "。" after one does not drop to a line of its own) and a wide display formula scrolls in its own
box, with a shadow at the edge that hides more.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from browser_support import DESKTOP, PHONE, TIMEOUT_MS, SiteServer
from repository import LANGUAGES, SITE_URL
from site_pages import expected_formulas, nav_sources, page_url

PAGES = [(lang, source) for lang in LANGUAGES for source in nav_sources()]
IDS = [f"{lang}-{source.rsplit('.', 1)[0]}" for lang, source in PAGES]
SUBPATH = urlsplit(SITE_URL).path

# The text a reader sees (outside code), and the formulas that are drawn (an SVG with a size).
READ_JS = r"""() => {
  const SKIP = "pre, code, script, style, textarea, annotation";
  function visibleText(root) {
    const parts = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || el.closest(SKIP) || !el.checkVisibility()) continue;
      parts.push(node.data);
    }
    return parts.join(" ").replace(/\s+/g, " ");
  }
  const article = document.querySelector("article.md-content__inner");
  const svgs = article ? [...article.querySelectorAll(".arithmatex > mjx-container > svg")] : [];
  return {
    text: [article, ...document.querySelectorAll("nav.md-nav")]
      .filter(Boolean).map(visibleText).join(" | "),
    wrappers: article ? article.querySelectorAll(".arithmatex").length : 0,
    drawn: svgs.filter((svg) => {
      const box = svg.getBoundingClientRect();
      // Hidden tabs hold formulas too: those count when they are laid out once shown.
      return svg.closest(".tabbed-block") && !svg.checkVisibility() ? true : box.width > 1 && box.height > 1;
    }).length,
  };
}"""


@pytest.fixture(scope="module")
def no_script(browser, site: Path) -> dict:
    """Every page, read once with JavaScript disabled."""
    pages = {}
    with SiteServer(site, SUBPATH) as server:
        context = browser.new_context(java_script_enabled=False, viewport=DESKTOP)
        context.set_default_timeout(TIMEOUT_MS)
        requested: list[str] = []
        context.on("request", lambda request: requested.append(request.url))
        page = context.new_page()
        for lang, source in PAGES:
            page.goto(server.url(page_url(source, lang)), wait_until="load")
            pages[lang, source] = page.evaluate(READ_JS)
        context.close()
    pages["requested"] = requested
    return pages


@pytest.mark.parametrize(("lang", "source"), PAGES, ids=IDS)
def test_no_raw_tex_without_javascript(no_script: dict, lang: str, source: str) -> None:
    text = no_script[lang, source]["text"]
    for marker in ("\\(", "\\[", "$$", "\\begin", "\\frac", "\\sqrt"):
        assert marker not in text, f"{source} ({lang}) shows raw TeX {marker!r}: …{text[max(0, text.find(marker) - 60):text.find(marker) + 60]}…"


@pytest.mark.parametrize(("lang", "source"), PAGES, ids=IDS)
def test_every_formula_is_drawn_without_javascript(no_script: dict, site: Path, lang: str, source: str) -> None:
    page = no_script[lang, source]
    expected = expected_formulas(site, lang, source)
    assert page["wrappers"] == expected, f"{source} ({lang}): {page['wrappers']} formulas on the page, its sources hold {expected}"
    assert page["drawn"] == expected, f"{source} ({lang}): {page['drawn']} of {expected} formulas drawn without JavaScript"


def test_no_math_engine_is_requested(no_script: dict) -> None:
    engines = [url for url in no_script["requested"] if "mathjax" in url.lower() or "katex" in url.lower()]
    assert not engines, f"math engine files requested: {engines[:5]}"


# ---- the worked example with JavaScript on ----------------------------------------------------

STYLE_JS = r"""() => {
  const inline = [...document.querySelectorAll("article span.arithmatex > mjx-container")];
  const display = [...document.querySelectorAll("article div.arithmatex")];
  const colour = (el) => getComputedStyle(el).color;
  return {
    scheme: document.body.getAttribute("data-md-color-scheme"),
    colours: inline.slice(0, 20).map((formula) => [colour(formula.querySelector("svg")), colour(formula.parentElement.parentElement)]),
    // The stylesheet's fill, stroke and stroke width of each formula's outer group (no longer its attributes).
    fills: [...document.querySelectorAll("article mjx-container > svg > g")].map((g) => {
      const style = getComputedStyle(g);
      return style.fill === style.color && style.stroke === style.color && parseFloat(style.strokeWidth) === 0
        ? "the text colour, no stroke width" : `${style.fill} ${style.stroke} ${style.strokeWidth} (text ${style.color})`;
    }),
    tabStops: [...document.querySelectorAll(".arithmatex, .arithmatex *")].filter((el) => el.tabIndex >= 0 || el.hasAttribute("tabindex")).length,
    inlineBoxes: inline.filter((formula) => {
      const style = getComputedStyle(formula);
      return style.display !== "inline" || style.overflowX !== "visible";
    }).length,
    widths: inline.slice(0, 5).map((formula) => formula.querySelector("svg").getBoundingClientRect().width),
    pageScrolls: document.documentElement.scrollWidth > window.innerWidth,
    wide: display.filter((box) => box.scrollWidth > box.clientWidth + 1).map((box) => ({
      overflowX: getComputedStyle(box).overflowX,
      cue: getComputedStyle(box).backgroundImage,
    })),
    // Inline formulas followed by "。": the full stop's line box is the formula's.
    fullStops: inline.filter((formula) => {
      const next = formula.parentElement.nextSibling;
      return next && next.nodeType === Node.TEXT_NODE && /^[。，、；：.,;:]/.test(next.data);
    }).map((formula) => {
      const range = document.createRange();
      const next = formula.parentElement.nextSibling;
      range.setStart(next, 0); range.setEnd(next, 1);
      const stop = range.getBoundingClientRect(), svg = formula.querySelector("svg").getBoundingClientRect();
      return {stopTop: stop.top, stopBottom: stop.bottom, svgTop: svg.top, svgBottom: svg.bottom, svgRight: svg.right, stopLeft: stop.left};
    }),
  };
}"""


def open_worked_example(tab, lang: str):
    tab.page.goto(tab.server.url(page_url("worked-example.md", lang)), wait_until="load")
    return tab.page


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_formulas_take_the_text_colour_and_are_no_tab_stops(tabs, server: SiteServer, lang: str, scheme: str) -> None:
    with tabs.open(server, color_scheme=scheme, viewport=DESKTOP) as tab:
        page = open_worked_example(tab, lang)
        page.wait_for_function("(scheme) => document.body.getAttribute('data-md-color-scheme') === scheme",
                               arg="slate" if scheme == "dark" else "default")
        found = page.evaluate(STYLE_JS)
        assert found["colours"], "no inline formula on the worked example"
        for formula, text in found["colours"]:
            assert formula == text, f"{lang}, {scheme}: a formula is drawn in {formula}, its text in {text}"
        assert set(found["fills"]) == {"the text colour, no stroke width"}, f"formulas filled and stroked with {set(found['fills'])}"
        assert found["tabStops"] == 0, f"{found['tabStops']} formula elements are tab stops"
        before = found["widths"]
        page.evaluate("() => { document.documentElement.style.fontSize = '200%'; }")
        after = page.evaluate(STYLE_JS)["widths"]
        assert all(b > 1.5 * a for a, b in zip(before, after)), f"formulas do not grow with the font size: {before} → {after}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_formulas_on_a_phone(tabs, server: SiteServer, lang: str) -> None:
    with tabs.open(server, viewport=PHONE, device_scale_factor=1, has_touch=True) as tab:
        page = open_worked_example(tab, lang)
        found = page.evaluate(STYLE_JS)
        assert found["inlineBoxes"] == 0, f"{found['inlineBoxes']} inline formulas are boxes of their own (scroll boxes)"
        assert not found["pageScrolls"], "the worked example scrolls sideways on a phone"
        assert found["wide"], "no display formula is wider than a phone: the scrolling is not exercised"
        for box in found["wide"]:
            assert box["overflowX"] == "auto", f"a wide display formula does not scroll: {box}"
            assert "gradient" in box["cue"], f"a wide display formula has no scroll shadow: {box}"
        assert found["fullStops"], "no inline formula followed by punctuation on the worked example"
        for stop in found["fullStops"]:
            assert stop["stopTop"] < stop["svgBottom"] and stop["stopBottom"] > stop["svgTop"], f"the punctuation after a formula dropped to the next line: {stop}"
