"""What a reader's browser downloads and draws: one colour scheme's figures only (the other when the
palette toggle shows it), the formulas' shared glyphs, the emoji from the site's own font, and the
figure code that a caption's link opens."""

from __future__ import annotations

import pytest
from browser_support import DESKTOP, PHONE, TIMEOUT_MS, LocalOnly, SiteServer
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from site_pages import page_url

SCROLL_TO_END_JS = """async () => {
  for (let y = 0; y < document.body.scrollHeight; y += innerHeight / 2) {
    scrollTo(0, y);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await Promise.all([...document.images].filter((image) => image.checkVisibility()).map((image) => image.decode().catch(() => null)));
}"""


def figure_requests(requests: list[str]) -> set[str]:
    return {url.rsplit("/", 1)[1].split("#")[0] for url in requests if "/figures/" in url}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_page_downloads_the_figures_of_one_scheme_and_the_toggle_brings_the_other(browser, server: SiteServer, scheme: str) -> None:
    other = "dark" if scheme == "light" else "light"
    with LocalOnly(browser, server, viewport=DESKTOP, color_scheme=scheme) as tab:
        requests: list[str] = []
        tab.page.on("request", lambda request: requests.append(request.url))
        tab.open(page_url("worked-example.md", "zh"))
        tab.page.evaluate(SCROLL_TO_END_JS)
        assert figure_requests(requests) == {f"worked_weights.{scheme}.svg"}, requests
        # Material's palette toggle (its label for the next scheme's radio button).
        tab.page.locator("form[data-md-component=palette] label:visible").first.click()
        tab.page.wait_for_function(f"() => document.body.dataset.mdColorScheme === '{'slate' if other == 'dark' else 'default'}'")
        # The figure now shown has not been fetched yet: it is, once the reader scrolls to it.
        tab.page.evaluate("() => [...document.querySelectorAll('article figure img')].find((image) => image.checkVisibility()).scrollIntoView()")
        tab.page.wait_for_function("() => [...document.querySelectorAll('article figure img')].some((image) => image.checkVisibility() && image.complete && image.naturalWidth > 0)")
        assert figure_requests(requests) == {f"worked_weights.{scheme}.svg", f"worked_weights.{other}.svg"}, requests
        assert not tab.foreign


# Pages whose first figure is near the top: a first visit lays it out before Material's bundle runs.
FIRST_VISIT_PAGES = [("motivation.md", "zh"), ("learned-attention.md", "en"), ("self-vs-cross.md", "zh")]


@pytest.mark.parametrize(("source", "lang"), FIRST_VISIT_PAGES, ids=[f"{lang}-{source}" for source, lang in FIRST_VISIT_PAGES])
def test_a_first_visit_in_the_dark_scheme_fetches_no_light_figure(browser, server: SiteServer, source: str, lang: str) -> None:
    with LocalOnly(browser, server, viewport=DESKTOP, color_scheme="dark") as tab:  # a new tab: nothing saved
        requests: list[str] = []
        tab.page.on("request", lambda request: requests.append(request.url))
        tab.open(page_url(source, lang))
        tab.page.evaluate(SCROLL_TO_END_JS)
        fetched = figure_requests(requests)
        shown = tab.page.evaluate("() => [...document.querySelectorAll('article figure img')].filter((image) => image.checkVisibility()).length")
        assert shown and len(fetched) == shown, (shown, fetched)
        assert all(name.endswith(".dark.svg") for name in fetched), f"a first visit in the dark scheme fetched {sorted(fetched)}"
        assert not tab.foreign


GLYPHS_JS = """() => {
  const uses = [...document.querySelectorAll("mjx-container use")];
  const missing = uses.map((use) => use.getAttribute("xlink:href") || use.getAttribute("href"))
    .filter((href) => !document.getElementById(href.slice(1)));
  // The table of contents on screen (the copy in the folded navigation is not displayed).
  const tocFormulas = [...document.querySelectorAll("nav.md-nav--secondary mjx-container > svg")].filter((svg) => svg.checkVisibility());
  const drawn = (svg) => { const box = svg.querySelector("g").getBBox(); return box.width > 0 && box.height > 0; };
  return {uses: uses.length, missing, toc: tocFormulas.length, tocDrawn: tocFormulas.filter(drawn).length,
          article: document.querySelectorAll("article mjx-container > svg").length,
          articleDrawn: [...document.querySelectorAll("article mjx-container > svg")].filter(drawn).length};
}"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_formulas_draw_from_the_pages_shared_glyphs_in_the_article_and_the_table_of_contents(tabs, server: SiteServer, lang: str) -> None:
    with tabs.open(server, viewport=DESKTOP) as tab:
        tab.open(page_url("why-sqrt-dk.md", lang))
        found = tab.page.evaluate(GLYPHS_JS)
        assert found["uses"] > 100 and not found["missing"], found
        assert found["toc"] >= 1 and found["tocDrawn"] == found["toc"], found
        assert found["article"] > 10 and found["articleDrawn"] == found["article"], found


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_emoji_are_drawn_with_the_sites_font(tabs, server: SiteServer, lang: str) -> None:
    with tabs.open(server, viewport=DESKTOP) as tab:
        tab.open(page_url("why-three-matrices.md", lang))
        tab.page.evaluate("() => document.fonts.ready")
        cdp = tab.context.new_cdp_session(tab.page)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument")["root"]["nodeId"]
        heading = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "article h1"})["nodeId"]
        fonts = {font["familyName"]: font["glyphCount"] for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": heading})["fonts"]}
        cdp.detach()  # the tab goes on to other tests (browser_support.Tabs)
        assert fonts.get("Noto Emoji") == 1, f"📌 is drawn with {fonts}"
        assert tab.page.evaluate("() => document.fonts.check('16px \"QKV Emoji\"', '📌')")
        assert not tab.foreign


# What anchor tracking (navigation.tracking) does on a slow device between a jump to a fragment and
# the hashchange event that announces it: the jump's scroll makes it write the heading in view into
# the address bar (seen with Chromium's CPU slowed down 30 times). Added before the page's scripts,
# this listener runs before Material's, which then reads that heading's fragment from the address bar.
TRACKING_FIRST_JS = """addEventListener("hashchange", () => {
  const heading = document.querySelector("article h2[id]");
  if (location.hash !== "#" + heading.id) history.replaceState(null, "", "#" + heading.id);
});"""


def open_the_figure_code(tab: LocalOnly, lang: str) -> None:
    tab.open(page_url("worked-example.md", lang))
    link = tab.page.locator("figcaption a.figure-source").first
    target = link.get_attribute("href")
    assert target and target.startswith("#figure-code-"), target
    link.click()
    try:
        tab.page.wait_for_function(f"() => document.getElementById({target[1:]!r}).open")
    except PlaywrightTimeout:
        state = tab.page.evaluate("() => ({hash: location.hash, zoomed: !!document.querySelector('dialog.qkv-zoom[open]')})")
        pytest.fail(f"{target} was still folded {TIMEOUT_MS / 1000:.0f} s after its link was clicked (address fragment {state['hash']!r}, zoom dialog open: {state['zoomed']})")
    code = tab.page.locator(f"{target} pre code").first
    assert code.is_visible() and "def draw" in code.inner_text()
    assert not tab.foreign


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_captions_code_link_opens_the_code_that_drew_the_figure(tabs, server: SiteServer, lang: str) -> None:
    with tabs.open(server, viewport=DESKTOP) as tab:
        open_the_figure_code(tab, lang)


def test_the_code_opens_when_anchor_tracking_rewrites_the_address_first(browser, server: SiteServer) -> None:
    with LocalOnly(browser, server, viewport=DESKTOP) as tab:  # its own tab: the script stays with a page
        tab.page.add_init_script(TRACKING_FIRST_JS)
        open_the_figure_code(tab, "en")


# Run before the page's scripts: notes when Material opens its request for the search index and when
# that request is sent (search-on-demand.js lets it open, but holds back the send until the reader goes to search).
SEARCH_INDEX_JS = """(() => {
  const open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;
  window.searchIndex = {opened: false, sent: false};
  XMLHttpRequest.prototype.open = function (method, url) {
    this.isSearchIndex = /\\/search\\/search_index\\.json(?:$|[?#])/.test(String(url));
    if (this.isSearchIndex) window.searchIndex.opened = true;
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    if (this.isSearchIndex) window.searchIndex.sent = true;
    return send.apply(this, arguments);
  };
})();"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_search_is_fetched_when_the_reader_goes_to_search(browser, server: SiteServer, lang: str) -> None:
    with LocalOnly(browser, server, viewport=DESKTOP) as tab:
        requests: list[str] = []
        tab.page.on("request", lambda request: requests.append(request.url))
        tab.context.add_init_script(SEARCH_INDEX_JS)
        tab.open(page_url("worked-example.md", lang))
        tab.page.evaluate(SCROLL_TO_END_JS)
        tab.page.wait_for_function("() => window.searchIndex.opened")  # Material has asked for the index
        assert not tab.page.evaluate("() => window.searchIndex.sent"), "the search index was sent for on page load"
        search = [url for url in requests if "search_index.json" in url or "/workers/search." in url or "/lunr/" in url]
        assert not search, f"the search was fetched on page load: {search}"
        tab.page.evaluate("() => scrollTo(0, 0)")
        query = tab.page.locator("input[data-md-component='search-query']")
        query.click()  # the search box in the header (a wide screen shows it, not its toggle)
        query.fill("softmax")
        query.press("End")  # Material reads the query on keyup (fill alone raced its focus handler under load)
        tab.page.wait_for_selector(".md-search-result__item", timeout=TIMEOUT_MS)
        assert tab.page.evaluate("() => window.searchIndex.sent")
        assert [url for url in requests if url.endswith(page_url("index.md", lang) + "search/search_index.json")]
        assert [url for url in requests if "/workers/search." in url]
        assert not tab.foreign


FIRST_FIGURE_JS = """() => {
  const image = [...document.querySelectorAll("article figure img")].find((image) => image.checkVisibility());
  image.scrollIntoView({block: "center"});
  return image.currentSrc || image.src;
}"""
FIRST_FIGURE_BOX_JS = """async () => {
  const image = [...document.querySelectorAll("article figure img")].find((image) => image.checkVisibility());
  if (image.complete && image.naturalWidth) await image.decode();
  const box = image.getBoundingClientRect();
  return {loaded: image.complete && image.naturalWidth > 0, width: box.width, height: box.height};
}"""


@pytest.mark.parametrize(("lang", "viewport"), [("zh", DESKTOP), ("en", PHONE)], ids=["zh-desktop", "en-phone"])
def test_a_figure_holds_its_place_before_its_file_arrives(browser, server: SiteServer, lang: str, viewport: dict) -> None:
    # The text under a figure must not jump when the figure's file arrives: the page knows its size
    # from the start. The file is held back until the figure's box has been measured without it.
    with LocalOnly(browser, server, viewport=viewport) as tab:
        held, released = [], []

        def hold(route) -> None:
            if released:
                route.continue_()
            else:
                held.append(route)

        tab.page.route("**/figures/*.svg", hold)
        tab.open(page_url("worked-example.md", lang))
        shown = tab.page.evaluate(FIRST_FIGURE_JS)
        before = tab.page.evaluate(FIRST_FIGURE_BOX_JS)
        assert not before["loaded"], f"{shown} arrived although it was held back"
        released.append(True)
        for route in held:
            route.continue_()
        tab.page.wait_for_function(FIRST_FIGURE_BOX_JS.replace("return {", "return image.complete && image.naturalWidth > 0 && {"))
        after = tab.page.evaluate(FIRST_FIGURE_BOX_JS)
        assert after["height"] > 100, f"{shown} is drawn {after['width']:.0f}×{after['height']:.0f} px"
        assert abs(before["width"] - after["width"]) < 1 and abs(before["height"] - after["height"]) < 1, (
            f"{shown}: {before['width']:.1f}×{before['height']:.1f} px before its file arrived, {after['width']:.1f}×{after['height']:.1f} px after"
        )
        assert not tab.foreign
