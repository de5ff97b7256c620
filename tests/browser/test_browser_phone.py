"""The site on a 375 px phone and by keyboard: the header's stops are all on the screen (the drawer's
button among them, the closed drawer's links not), the drawer opens, is walked and closes by keyboard,
Space switches the colour scheme, every glossary term's tooltip is reached by Tab; formulas in tables
keep the size of the text around them (the table scrolls instead), the notebook's display formulas
are whole and reachable by keyboard, its prompts stay out of the code's way and no copy button covers
code; the playground keeps the reader's numbers when Material's tracking rewrites the address, its
radios and checkbox show a focus ring; a missing address gets the 404 page of its language."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from browser_support import DESKTOP, PHONE, READY_JS, SiteServer, wait_until
from bs4 import BeautifulSoup
from repository import SITE_URL
from site_pages import page_url

from qkv_site.figures.style import contrast  # WCAG 2, as the figures are checked

TABLE_PAGES = ["complexity.md", "worked-example.md", "why-three-matrices.md", "why-sqrt-dk.md"]
CASES = [("zh", "light"), ("en", "dark")]
SMALLEST_FORMULA = 11  # px: a formula's em (its font size) in a table on a phone


# ---- the header and the drawer by keyboard ----

# The focused element as the reader sees it on the screen: the colour-scheme toggle's radio is drawn as
# the icon (the label) after it. `seen` when that is in the window and no other element covers its
# middle (a link of a closed drawer is off the screen; one of a level the drawer does not show, under
# the level it does).
FOCUSED_JS = r"""() => {
  const focused = document.activeElement;
  const shown = focused.matches("input.md-option") ? focused.nextElementSibling : focused;
  const box = shown.getBoundingClientRect();
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  const hit = box.width > 0 && box.height > 0 && x >= 0 && y >= 0 && x < innerWidth && y < innerHeight ? document.elementFromPoint(x, y) : null;
  return {
    what: `${focused.tagName.toLowerCase()}.${[...focused.classList].join(".")} ${JSON.stringify((focused.textContent || focused.getAttribute("aria-label") || "").trim().slice(0, 30))}`,
    seen: !!hit && (shown === hit || shown.contains(hit)),
    inArticle: !!focused.closest("article"),
    inDrawer: !!focused.closest(".md-sidebar--primary"),
    drawerButton: focused.matches('label.md-header__button[for="__drawer"]'),
    drawerOpen: document.getElementById("__drawer").checked,
  };
}"""
SEEN = "() => (" + FOCUSED_JS + ")().seen"
SCHEME = "() => document.body.getAttribute('data-md-color-scheme')"


def tab_to(page, what: str, until: str, most: int = 12) -> None:
    """Press Tab until ``until`` (JavaScript) is true of the page; fail naming ``what`` after ``most`` presses."""
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate(until):
            return
    pytest.fail(f"{most} presses of Tab did not reach {what} ({page.url})", pytrace=False)


@pytest.mark.parametrize(("lang", "scheme"), CASES)
def test_every_tab_stop_before_the_article_is_on_the_screen(tabs, server: SiteServer, lang: str, scheme: str) -> None:
    with tabs.open(server, viewport=PHONE, color_scheme=scheme, is_mobile=True, has_touch=True) as tab:
        page = tab.page
        tab.open(page_url("worked-example.md", lang))
        stops = []
        while True:
            page.keyboard.press("Tab")
            focused = page.evaluate(FOCUSED_JS)
            if focused["inArticle"]:
                break
            stops.append(focused["what"])
            assert len(stops) < 20, f"{len(stops)} tab stops before the article ({lang}, 375 px): {stops}"
            assert not focused["inDrawer"], f"Tab reached {focused['what']} in the closed drawer ({lang}); stops so far: {stops}"
            wait_until(page, SEEN, f"the tab stop {focused['what']} to be on the screen (stops so far: {stops})")
        drawer = [stop for stop in stops if stop.startswith("label.md-header__button")]
        assert len(drawer) == 1, f"the drawer's button is not a tab stop ({lang}, 375 px): {stops}"
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


@pytest.mark.parametrize(("lang", "scheme", "key"), [("zh", "light", "Enter"), ("en", "dark", "Space"), ("zh", "dark", "Space"), ("en", "light", "Enter")])
def test_the_drawer_opens_is_walked_and_closes_by_keyboard(tabs, server: SiteServer, lang: str, scheme: str, key: str) -> None:
    with tabs.open(server, viewport=PHONE, color_scheme=scheme, is_mobile=True, has_touch=True) as tab:
        page = tab.page
        tab.open(page_url("worked-example.md", lang))
        tab_to(page, "the drawer's button", "() => document.activeElement.matches('label[for=\"__drawer\"]')", most=4)
        button = page.locator('label.md-header__button[for="__drawer"]')
        assert button.get_attribute("aria-expanded") == "false" and button.get_attribute("aria-label"), button.evaluate("n => n.outerHTML")
        page.keyboard.press(key)
        wait_until(page, "() => document.getElementById('__drawer').checked", f"{key} to open the drawer")
        assert button.get_attribute("aria-expanded") == "true"
        walked = []
        while page.evaluate(FOCUSED_JS)["inDrawer"]:
            focused = page.evaluate(FOCUSED_JS)
            wait_until(page, SEEN, f"the drawer's stop {focused['what']} to be on the screen (stops so far: {walked})")
            walked.append(focused["what"])
            assert len(walked) < 30, f"{len(walked)} stops in the open drawer: {walked}"
            page.keyboard.press("Tab")
        assert len(walked) >= 5, f"the drawer opened with the focus outside it, or shows few stops: {walked}"
        wait_until(page, "() => !document.getElementById('__drawer').checked", "Tab past the drawer's last stop to close it")
        button.focus()
        page.keyboard.press(key)
        wait_until(page, "() => document.getElementById('__drawer').checked", f"{key} to open the drawer again")
        page.keyboard.press("Escape")
        wait_until(page, """() => !document.getElementById('__drawer').checked && document.querySelector('.md-sidebar--primary').inert
                              && document.activeElement.matches('label[for="__drawer"]')""", "Escape to close the drawer and give the focus back to its button")
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


@pytest.mark.parametrize(("lang", "viewport", "scheme"), [("zh", PHONE, "light"), ("en", DESKTOP, "dark"), ("en", PHONE, "dark"), ("zh", DESKTOP, "light")],
                         ids=["zh-375px-light", "en-1280px-dark", "en-375px-dark", "zh-1280px-light"])
def test_space_switches_the_colour_scheme(tabs, server: SiteServer, lang: str, viewport: dict, scheme: str) -> None:
    with tabs.open(server, viewport=viewport, color_scheme=scheme) as tab:
        page = tab.page
        tab.open(page_url("intuition.md", lang))
        first = page.evaluate(SCHEME)
        assert first == ("slate" if scheme == "dark" else "default"), first
        tab_to(page, "the colour-scheme toggle", "() => document.activeElement.matches('input.md-option')", most=6)
        for then in ("default" if first == "slate" else "slate", first):
            wait_until(page, SEEN, f"the toggle's focus to be seen in the {page.evaluate(SCHEME)} scheme ({lang}, {viewport['width']} px)")
            page.keyboard.press("Space")
            wait_until(page, f"() => ({SCHEME})() === '{then}' && document.activeElement.matches('input.md-option')",
                       f"Space to switch to the {then} scheme ({lang}, {viewport['width']} px)")
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


# Every glossary term on the page, each with whether it is a tab stop, and its tooltip's text.
TERMS_JS = r"""() => [...document.querySelectorAll("article abbr[title]")].map((abbr) => ({title: abbr.title, stop: abbr.tabIndex >= 0}))"""
TOOLTIP_JS = r"""() => {
  const focused = document.activeElement;
  const tip = focused.matches("abbr") && document.getElementById(focused.getAttribute("aria-describedby") || "");
  return tip && tip.matches(".md-tooltip2--active") && tip.checkVisibility({opacityProperty: true}) ? tip.textContent.trim() : null;
}"""


@pytest.mark.parametrize(("lang", "viewport", "scheme"), [("zh", PHONE, "light"), ("en", DESKTOP, "dark"), ("en", PHONE, "dark"), ("zh", DESKTOP, "light")],
                         ids=["zh-375px", "en-1280px", "en-375px", "zh-1280px"])
def test_every_glossary_term_has_a_tooltip_the_keyboard_reaches(tabs, server: SiteServer, lang: str, viewport: dict, scheme: str) -> None:
    with tabs.open(server, viewport=viewport, color_scheme=scheme) as tab:
        page = tab.page
        tab.open(page_url("worked-example.md", lang))
        terms = page.evaluate(TERMS_JS)
        titles = {term["title"] for term in terms}
        reached = [term["title"] for term in terms if term["stop"]]
        assert len(titles) >= 5, f"only {len(titles)} glossary terms on the page ({lang}): this test checks little"
        assert set(reached) == titles, f"terms no Tab reaches ({lang}): {sorted(titles - set(reached))}"
        assert len(reached) == len(titles), f"a term is a tab stop more than once ({lang}): {reached}"
        tab_to(page, "a glossary term", "() => document.activeElement.matches('article abbr')", most=40)
        wait_until(page, f"(want) => ({TOOLTIP_JS})() === want",
                   f"the tooltip {reached[0]!r} to show while its term has the focus ({lang}, {viewport['width']} px)", arg=reached[0])
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


# ---- formulas in tables ----

# MathJax draws a formula in units of 1/1000 em of its font, whose x-height is 442 units; the build
# sizes the SVG in ex, so at its own size the formula's x-height is the text's. A cell that squeezed
# it (max-width) drew it smaller: measure both as a reader sees them, in pixels.
TABLE_FORMULAS_JS = r"""() => [...document.querySelectorAll("article table mjx-container > svg")].map((svg) => {
  const cell = svg.closest("td, th");
  const probe = document.createElement("span");
  probe.style.cssText = "display:inline-block;width:0;height:1ex;padding:0;border:0";
  cell.append(probe);
  const textEx = probe.getBoundingClientRect().height;
  probe.remove();
  const box = svg.viewBox.baseVal;
  const wrap = svg.closest(".md-typeset__scrollwrap");
  return {
    tex: svg.parentElement.querySelector("mjx-assistive-mml")?.textContent.trim() ?? "",
    xHeight: svg.getBoundingClientRect().height * 442 / box.height,
    em: svg.getBoundingClientRect().height * 1000 / box.height,
    textEx,
    fontSize: parseFloat(getComputedStyle(cell).fontSize),
    scrolls: wrap ? wrap.scrollWidth > wrap.clientWidth : false,
    focusable: wrap ? wrap.tabIndex >= 0 : false,
  };
})"""


@pytest.mark.parametrize(("lang", "scheme"), CASES)
def test_formulas_in_tables_are_as_large_as_the_text_on_a_phone(tabs, server: SiteServer, lang: str, scheme: str) -> None:
    with tabs.open(server, viewport=PHONE, color_scheme=scheme, is_mobile=True, has_touch=True) as tab:
        checked = 0
        for source in TABLE_PAGES:
            tab.open(page_url(source, lang))
            wait_until(tab.page, "() => document.readyState === 'complete'", "the page to finish loading")
            formulas = tab.page.evaluate(TABLE_FORMULAS_JS)
            assert formulas, f"{source} ({lang}): no formula in a table"
            for formula in formulas:
                where = f"{source} ({lang}, 375 px): {formula['tex']!r}"
                assert formula["xHeight"] >= 0.98 * formula["textEx"], (
                    f"{where} is drawn with an x-height of {formula['xHeight']:.1f} px beside text of "
                    f"{formula['textEx']:.1f} px ({formula['fontSize']:g} px font)")
                assert formula["em"] >= SMALLEST_FORMULA, f"{where} is set at {formula['em']:.1f} px (its em), under {SMALLEST_FORMULA} px"
                if formula["scrolls"]:
                    assert formula["focusable"], f"{where}: its table scrolls but a keyboard cannot reach it"
            checked += len(formulas)
            width = tab.page.evaluate("() => document.scrollingElement.scrollWidth")
            assert width <= PHONE["width"], f"{source} ({lang}) is {width} px wide on a 375 px phone"
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"
    assert checked >= 30, f"only {checked} formulas in tables: this test checks little"


# ---- the notebook's display formulas ----

# Each display formula's scroll box, and the first ancestor that clips what overflows it.
NOTEBOOK_FORMULAS_JS = r"""() => [...document.querySelectorAll(".jupyter-wrapper div.arithmatex:has(mjx-container)")]
  .map((box) => {
  const own = box.getBoundingClientRect();
  let clip = null;
  for (let e = box.parentElement; e && e !== document.body; e = e.parentElement) {
    const style = getComputedStyle(e);
    if (style.overflowX !== "visible") { clip = e.getBoundingClientRect(); break; }
  }
  return {
    tex: box.querySelector("mjx-assistive-mml")?.textContent.trim() ?? "",
    left: own.left, right: own.right, clipLeft: clip ? clip.left : 0, clipRight: clip ? clip.right : innerWidth,
    overflows: box.scrollWidth > box.clientWidth, focusable: box.tabIndex >= 0,
  };
})"""


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["375px", "1280px"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_notebook_display_formulas_are_whole_and_reachable_by_keyboard(
    tabs, server: SiteServer, lang: str, viewport: dict
) -> None:
    from axe_playwright_python.sync_playwright import Axe

    with tabs.open(server, viewport=viewport, color_scheme="light") as tab:
        page = tab.page
        tab.open(page_url("notebook.ipynb", lang))
        wait_until(page, "() => document.readyState === 'complete'", "the notebook to finish loading")
        formulas = page.evaluate(NOTEBOOK_FORMULAS_JS)
        assert len(formulas) >= 3, f"only {len(formulas)} display formulas in the notebook ({lang})"
        wide = 0
        for index, formula in enumerate(formulas):
            where = f"notebook ({lang}, {viewport['width']} px), display formula {formula['tex']!r}"
            assert formula["left"] >= formula["clipLeft"] - 0.5 and formula["right"] <= formula["clipRight"] + 0.5, (
                f"{where}: its box ({formula['left']:.0f}–{formula['right']:.0f} px) is cut by the cell "
                f"({formula['clipLeft']:.0f}–{formula['clipRight']:.0f} px)")
            if formula["overflows"]:
                wide += 1
                assert formula["focusable"], f"{where} scrolls but a keyboard cannot reach it"
                box = page.locator(".jupyter-wrapper div.arithmatex:has(mjx-container)").nth(index)
                box.focus()
                page.keyboard.press("ArrowRight")  # a focused scroll box scrolls sideways
                wait_until(page, "(box) => box.scrollLeft > 0", f"{where} to scroll by keyboard", arg=box.element_handle())
        if viewport is PHONE:
            assert wide, f"no display formula of the notebook ({lang}) is wider than a phone: this test checks little"
        violations = Axe().run(page, options={"runOnly": ["scrollable-region-focusable"]}).response["violations"]
        assert not violations, [[node["target"] for node in v["nodes"]] for v in violations]
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


# ---- copy buttons and the notebook's prompts ----

# Every copy button on show (Material's code blocks, with every folded one opened; the notebook's
# cells) and the first code text under it, read from the text's own boxes within its scroll box.
COPY_BUTTONS_JS = r"""() => {
  for (const folded of document.querySelectorAll("article details")) folded.open = true;
  return [...document.querySelectorAll("article :is(.md-code__nav, .zeroclipboard-container)")].map((button) => {
    const box = button.getBoundingClientRect();
    const code = button.closest("pre") || button.closest(".jp-InputArea");
    const scroller = code.querySelector("code, .highlight-ipynb pre") || code;
    const clip = scroller.getBoundingClientRect();
    const walker = document.createTreeWalker(scroller, NodeFilter.SHOW_TEXT);
    let under = null;
    for (let node = walker.nextNode(); node && under === null; node = walker.nextNode()) {
      if (!node.data.trim() || node.parentElement.closest(".md-code__nav, .zeroclipboard-container, .clipboard-copy-txt")) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) {
        const left = Math.max(r.left, clip.left), right = Math.min(r.right, clip.right);
        if (right > box.left && left < box.right && r.bottom > box.top && r.top < box.bottom) { under = node.data.trim().slice(0, 40); break; }
      }
    }
    return {shown: box.width > 0, width: box.width, height: box.height, under,
            block: code.id || code.closest("[id]")?.id || code.className};
  });
}"""
COPY_PAGES = ["notebook.ipynb", "worked-example.md", "why-sqrt-dk.md", "complexity.md"]
TARGET = 24  # px: WCAG 2.5.8's smallest target


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["375px", "1280px"])
@pytest.mark.parametrize(("lang", "scheme"), CASES)
def test_no_copy_button_covers_code(tabs, server: SiteServer, lang: str, scheme: str, viewport: dict) -> None:
    with tabs.open(server, viewport=viewport, color_scheme=scheme) as tab:
        buttons = 0
        for source in COPY_PAGES:
            tab.open(page_url(source, lang))
            shown = [button for button in tab.page.evaluate(COPY_BUTTONS_JS) if button["shown"]]
            covering = [f"{button['block']}: {button['under']!r}" for button in shown if button["under"] is not None]
            assert not covering, f"{source} ({lang}, {viewport['width']} px): a copy button covers code in {covering}"
            small = [button for button in shown if min(button["width"], button["height"]) < TARGET]
            assert not small, f"{source} ({lang}, {viewport['width']} px): copy buttons smaller than {TARGET} px: {small}"
            buttons += len(shown)
        assert buttons >= 30, f"only {buttons} copy buttons looked at: this test checks little"
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


# Each code cell of the notebook: its prompt, its code and its outputs, as boxes.
NOTEBOOK_CELLS_JS = r"""() => [...document.querySelectorAll(".jupyter-wrapper .jp-CodeCell")].map((cell) => {
  const box = (selector) => { const el = cell.querySelector(selector); if (!el) return null;
                              const r = el.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width}; };
  return {cell: box(".jp-Cell-inputWrapper"), prompt: box(".jp-InputPrompt"), code: box(".jp-InputArea-editor"),
          outputs: [...cell.querySelectorAll(".jp-OutputArea-output")].map((out) => out.getBoundingClientRect().width)};
})"""


@pytest.mark.parametrize(("lang", "scheme"), CASES)
def test_notebook_code_takes_the_width_of_a_phone(tabs, server: SiteServer, lang: str, scheme: str) -> None:
    with tabs.open(server, viewport=PHONE, color_scheme=scheme, is_mobile=True, has_touch=True) as tab:
        tab.open(page_url("notebook.ipynb", lang))
        cells = tab.page.evaluate(NOTEBOOK_CELLS_JS)
        assert len(cells) >= 4, f"only {len(cells)} code cells in the notebook ({lang})"
        for index, cell in enumerate(cells):
            where = f"notebook ({lang}, 375 px), code cell {index + 1}"
            assert cell["code"]["width"] >= 0.9 * cell["cell"]["width"], (
                f"{where}: the code is {cell['code']['width']:.0f} px of the cell's {cell['cell']['width']:.0f} px (the prompt takes the rest)")
            assert cell["prompt"]["bottom"] <= cell["code"]["top"] + 0.5, f"{where}: the prompt is beside the code, not above it"
            for width in cell["outputs"]:
                assert width >= 0.9 * cell["cell"]["width"], f"{where}: an output is {width:.0f} px of the cell's {cell['cell']['width']:.0f} px"
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


# ---- the playground keeps the reader's numbers ----

CELL = 'input[data-matrix="x"][data-row="0"][data-col="0"]'


def playground_state(page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


@pytest.mark.parametrize("start", ["zh", "en"])
def test_the_playground_keeps_its_numbers_after_a_scroll(tabs, server: SiteServer, start: str) -> None:
    other = "en" if start == "zh" else "zh"
    with tabs.open(server, viewport=DESKTOP, color_scheme="light") as tab:
        page = tab.page
        tab.open(page_url("playground.md", start))
        page.wait_for_selector(f".qkv-playground[data-qkv-ready] {CELL}")
        page.locator(CELL).fill("7")
        page.locator('input[data-role="causal"]').check()
        assert playground_state(page).get("x", [""])[0].startswith("7,"), page.url
        # Scroll as a reader does, until Material's tracking writes the section (#try-it) into the address
        # (it ignores the first pause after the page loads: keep scrolling; see test_browser_tracking.py).
        wait_until(page, """() => {
            if (location.hash === "#try-it") return true;
            window.nudge = window.nudge === 10 ? 11 : 10;
            window.scrollBy(0, document.getElementById("try-it").getBoundingClientRect().top - window.nudge);
            return false;
          }""", "Material's tracking to write #try-it into the address", polling=400)
        state = playground_state(page)
        assert state.get("x", [""])[0].startswith("7,") and state.get("m") == ["1"], f"the state left the address: {page.url}"
        page.reload(wait_until="load")
        page.evaluate(READY_JS)
        page.wait_for_selector(f".qkv-playground[data-qkv-ready] {CELL}")
        assert page.locator(CELL).input_value() == "7", f"a reload lost the edit: {page.url}"
        assert page.locator('input[data-role="causal"]').is_checked()
        page.hover("div.md-select")
        target = urlsplit(server.url(page_url("playground.md", other))).path
        # the other page's load, not an address this page rewrites in place (also a navigation)
        with page.expect_navigation(url=lambda url: urlsplit(url).path == target, wait_until="load"):
            page.locator(f"a.md-select__link[hreflang='{other}']").click()
        assert urlsplit(page.url).path == target, page.url
        page.wait_for_selector(f".qkv-playground[data-qkv-ready] {CELL}")
        assert page.locator(CELL).input_value() == "7", f"the language switch lost the edit: {page.url}"
        assert page.locator('input[data-role="causal"]').is_checked()
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


def test_an_older_link_with_the_state_in_the_hash_moves_it_into_the_query(tabs, server: SiteServer) -> None:
    with tabs.open(server, viewport=DESKTOP, color_scheme="light") as tab:
        page = tab.page
        state = "p=article&t=a,b&x=3,0;0,1&q=1,0;0,1&k=1,0;0,1&v=1,0;0,1&s=none&m=0"
        tab.open(page_url("playground.md", "en") + "#" + state)
        page.wait_for_selector(f".qkv-playground[data-qkv-ready] {CELL}")
        assert page.locator(CELL).input_value() == "3"
        parts = urlsplit(page.url)
        assert parse_qs(parts.query).get("x") == ["3,0;0,1"] and parts.fragment == "", page.url


# ---- a focus ring on the radios and the checkbox ----


# The ring as drawn: outline style, width and colour, and the page colour around it (colours as
# sRGB 0–1, read through a canvas so any CSS colour syntax comes out the same).
RING_JS = r"""(input) => {
  const rgb = (css) => { const c = document.createElement("canvas").getContext("2d"); c.fillStyle = css; c.fillRect(0, 0, 1, 1);
                         return [...c.getImageData(0, 0, 1, 1).data].slice(0, 3).map((v) => v / 255); };
  const style = getComputedStyle(input);
  let bg = "rgba(0, 0, 0, 0)";
  for (let e = input; e && bg.endsWith(", 0)"); e = e.parentElement) bg = getComputedStyle(e).backgroundColor;
  return {focused: document.activeElement === input, visible: input.matches(":focus-visible"), style: style.outlineStyle,
          width: parseFloat(style.outlineWidth), colour: rgb(style.outlineColor), background: rgb(bg)};
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_radios_and_the_checkbox_show_a_focus_ring(tabs, server: SiteServer, scheme: str) -> None:
    with tabs.open(server, viewport=DESKTOP, color_scheme=scheme) as tab:
        page = tab.page
        tab.open(page_url("playground.md", "zh"))
        page.wait_for_selector(".qkv-playground[data-qkv-ready] input[data-role='causal']")
        page.locator('select[data-role="d_v"]').focus()
        seen = {}
        for _ in range(6):  # Tab from the last dimension into the scaling radios, then to the checkbox
            page.keyboard.press("Tab")
            role = page.evaluate("() => document.activeElement.dataset.role")
            if role in ("scaling", "causal") and role not in seen:
                seen[role] = page.evaluate(RING_JS, page.evaluate_handle("() => document.activeElement"))
        assert set(seen) == {"scaling", "causal"}, f"Tab did not reach the radios and the checkbox: {seen}"
        for role, ring in seen.items():
            drawn = ring["visible"] and ring["style"] not in ("none", "hidden") and ring["width"] >= 2
            assert drawn, f"{role} ({scheme}): no visible ring: {ring}"
            ratio = contrast(ring["colour"], ring["background"])
            assert ratio >= 3, f"{role} ({scheme}): the ring is {ratio:.2f}:1 on the page (WCAG 1.4.11 asks 3:1)"
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


# ---- the 404 page of each language ----

NOT_FOUND = {"zh": ("404 - 找不到这个页面", "首页"), "en": ("404 - Page not found", "home page")}


@pytest.mark.parametrize(("lang", "folder"), [("zh", ""), ("en", "en/")])
def test_each_language_has_its_404_page_with_a_menu_to_each_home_page(site: Path, lang: str, folder: str) -> None:
    html = BeautifulSoup((site / folder / "404.html").read_text(encoding="utf-8"), "html.parser")
    heading, home = NOT_FOUND[lang]
    assert html.html["lang"] == lang, f"{folder}404.html is in {html.html['lang']!r}"
    assert html.select_one("article h1").get_text(strip=True) == heading, html.select_one("article").get_text(" ", strip=True)
    prefix = urlsplit(SITE_URL).path
    home_link = html.select_one("article a[href]")
    assert home_link.get_text(strip=True) == home and home_link["href"] == prefix + folder, home_link
    links = {a["hreflang"]: a["href"] for a in html.select("a.md-select__link[hreflang]")}
    assert links == {"zh": prefix, "en": f"{prefix}en/"}, f"the 404 page's language menu links to {links}"


# The server answers a missing address with the site's root 404.html, as GitHub Pages does.
@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["375px", "1280px"])
@pytest.mark.parametrize(("lang", "scheme"), CASES)
def test_a_missing_address_gets_the_404_page_of_its_language(tabs, server: SiteServer, lang: str, scheme: str, viewport: dict) -> None:
    with tabs.open(server, viewport=viewport, color_scheme=scheme) as tab:
        page = tab.page
        missing = page_url("index.md", lang) + "no-such-page/"
        response = page.goto(server.url(missing), wait_until="load")
        assert response is not None and response.status == 404, f"{missing}: status {response and response.status}"
        heading, _ = NOT_FOUND[lang]
        wait_until(page, "([lang, heading]) => document.readyState === 'complete' && document.documentElement.lang === lang"
                         " && document.querySelector('article h1')?.textContent.trim() === heading",
                   f"the {lang} 404 page at {missing}", arg=[lang, heading])
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"
