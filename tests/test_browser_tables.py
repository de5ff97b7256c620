"""Wide tables on a 1280 px desktop: the complexity table's “n = 4,096, d = 512” column and the KV-cache
table's “Per token” / “4,096 tokens” columns are in view, and any table still wider than the column
shows a scroll bar that can be seen and reached by keyboard."""

from __future__ import annotations


import pytest

from browser_support import DESKTOP, PHONE, LocalOnly, SiteServer
from site_pages import nav_sources, page_url

# (page, a header of the table, the headers that must be in view), per language
NAMED = {
    "zh": [("complexity.md", "乘法次数", ["n = 4,096, d = 512"]), ("beyond-quadratic.md", "头维度", ["每个 Token", "4,096 个 Token"])],
    "en": [("complexity.md", "Multiplications", ["n = 4,096, d = 512"]), ("beyond-quadratic.md", "Head dim", ["Per token", "4,096 tokens"])],
}

TABLES_JS = r"""() => [...document.querySelectorAll("article table")].map((table) => {
  const wrap = table.closest(".md-typeset__scrollwrap") || table.parentElement;
  const edge = wrap.getBoundingClientRect().right;
  const style = getComputedStyle(wrap);
  const thumb = (style.scrollbarColor.match(/rgba?\([^)]*\)/) || ["rgba(0, 0, 0, 0)"])[0].match(/[\d.]+/g).map(Number);
  return {
    headers: [...table.querySelectorAll("th")].map((th) => ({text: th.textContent.trim(), inView: th.getBoundingClientRect().right <= edge + 0.5})),
    overflows: wrap.scrollWidth > wrap.clientWidth,
    scrollbar: {width: style.scrollbarWidth, thumbAlpha: thumb.length > 3 ? thumb[3] : 1},
    focusable: wrap.tabIndex >= 0,
  };
})"""


def tables_of_every_page(browser, server: SiteServer, lang: str, viewport: dict) -> dict[str, list[dict]]:
    with LocalOnly(browser, server, viewport=viewport, color_scheme="light") as tab:
        found = {}
        for source in nav_sources():
            if source.endswith(".ipynb"):
                continue
            tab.open(page_url(source, lang))
            tab.page.wait_for_function("() => document.readyState === 'complete'")
            found[source] = tab.page.evaluate(TABLES_JS)
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"
    return found


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_wide_tables_show_every_column_at_1280_px(browser, server: SiteServer, lang: str) -> None:
    tables = tables_of_every_page(browser, server, lang, DESKTOP)
    for source, marker, wanted in NAMED[lang]:
        table = next((t for t in tables[source] if any(marker in h["text"] for h in t["headers"])), None)
        assert table, f"{source} ({lang}): no table with the header {marker!r}"
        for header in wanted:
            found = [h for h in table["headers"] if h["text"] == header]
            assert found and found[0]["inView"], f"{source} ({lang}): the column {header!r} is not in view at 1280 px"
    check_scroll_bars(tables, lang, DESKTOP)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_table_wider_than_a_phone_shows_its_scroll_bar(browser, server: SiteServer, lang: str) -> None:
    tables = tables_of_every_page(browser, server, lang, PHONE)
    assert check_scroll_bars(tables, lang, PHONE) >= 3, f"fewer than 3 tables overflow a phone ({lang}): this test checks little"


def check_scroll_bars(tables: dict[str, list[dict]], lang: str, viewport: dict) -> int:
    """Every table wider than its column shows a scroll bar and is a tab stop; return how many do."""
    overflowing = 0
    for source, page_tables in tables.items():
        for table in page_tables:
            if not table["overflows"]:
                continue
            overflowing += 1
            where = f"{source} ({lang}, {viewport['width']} px), the table {table['headers'][0]['text']!r}…"
            assert table["scrollbar"]["width"] != "none" and table["scrollbar"]["thumbAlpha"] >= 0.4, f"{where} scrolls without a visible scroll bar: {table['scrollbar']}"
            assert table["focusable"], f"{where} scrolls but a keyboard cannot reach it"
    return overflowing
