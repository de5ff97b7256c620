"""Every page, read to its end as Chromium requests it on a first visit, within its budget (qkv_site.tools.page_weight):
150 KB gzip, the worked-example page 100 KB, and a page over its target no heavier than it is today.
The sizes are those of the built files, so this is no timing: a page that grows past its budget fails."""

from __future__ import annotations

import pytest
from browser_support import SiteServer
from site_pages import SITE_MAP

from qkv_site.tools.page_weight import CATEGORIES, KB, Reader, measure_page, target

PAGES = [(source, lang) for lang in SITE_MAP.languages for source in SITE_MAP.nav]


@pytest.fixture(scope="module")
def reader(browser, server: SiteServer):
    """One tab that reads every page as a first visit would (its cache off, its storage emptied after each page)."""
    tab = Reader(browser, server, SITE_MAP)
    yield tab
    tab.close()


@pytest.mark.parametrize("lang", SITE_MAP.languages)
def test_the_reader_downloads_what_a_new_browser_context_downloads(browser, reader: Reader, server: SiteServer, lang: str) -> None:
    """The tab that reads every page fetches, for a page read after others, the files a new context fetches for it alone."""
    source = "learned-attention.md"  # figures of both schemes, formulas, the learned widgets
    reader.read("worked-example.md", lang)  # read before it: what the tab kept from one page to the next would show
    assert reader.read(source, lang).files == measure_page(browser, server, source, lang, SITE_MAP).files


@pytest.mark.parametrize(("source", "lang"), PAGES, ids=[f"{lang}-{source}" for source, lang in PAGES])
def test_a_page_read_to_its_end_is_within_its_budget(reader: Reader, source: str, lang: str) -> None:
    weight = reader.read(source, lang)
    categories = weight.by_category()
    assert categories["html"] > 0 and categories["css"] > 0 and categories["js"] > 0, weight.files
    assert not categories["search"], f"{source} ({lang}) fetched the search before the reader searched: {weight.files}"
    # the learned-attention page's widgets draw their first state from the page and fetch their models only when
    # the reader uses them: a reader who reads the page to its end fetches no model
    assert not any(path.endswith(".json") for path in weight.files), weight.files
    shown = ", ".join(f"{name} {categories[name] / KB:.1f}" for name in CATEGORIES if categories[name])
    assert weight.total <= weight.budget, (
        f"{source} ({lang}) weighs {weight.total / KB:.1f} KB gzip read to its end, over its budget of "
        f"{weight.budget / KB:.0f} KB (target {target(source) / KB:.0f} KB): {shown}")

