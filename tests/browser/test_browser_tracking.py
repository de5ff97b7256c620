"""The language switch keeps the section the reader has scrolled to, not only one reached through a
contents link: docs/assets/javascripts/language-switch.js carries the section over to the other
language, the one whose heading is in the top third of the window even while Material's
navigation.tracking still names the one before it in the address. The notebook has contents too, so
that the tracking writes its sections into the address."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from browser_support import DESKTOP, PHONE, READY_JS, SiteServer, click_in_place
from repository import ROOT
from site_pages import built_page, page_url

SECTION = "step-3"


@pytest.mark.parametrize("start", ["zh", "en"])
def test_language_switch_keeps_the_section_scrolled_to(tabs, server: SiteServer, start: str) -> None:
    other = "en" if start == "zh" else "zh"
    with tabs.open(server, viewport=DESKTOP, color_scheme="light") as tab:
        page = tab.page
        tab.open(page_url("worked-example.md", start))
        assert urlsplit(page.url).fragment == "", f"the page opened at {page.url}"
        # Scroll (no link, no click) until the section's heading is just under the top of the window:
        # Material tracks the last section whose heading has scrolled up to about the header's bottom
        # edge. It writes the address once scrolling has settled for 250 ms, but ignores the first time
        # it settles after the page loads (or after a jump to an anchor): a single scroll right after
        # loading is that first time. So keep scrolling a little, as a reader does, until the address
        # shows the section, and still shows it after two more looks without a scroll: on a slow
        # machine tracking can write one heading and, as the page settles, the one above it.
        page.wait_for_function(
            """(id) => {
              if (location.hash === `#${id}`) return (window.settled = (window.settled || 0) + 1) >= 3;
              window.settled = 0;
              window.nudge = window.nudge === 10 ? 11 : 10;  // a different position each time: a real scroll
              window.scrollBy(0, document.getElementById(id).getBoundingClientRect().top - window.nudge);
              return false;
            }""",
            arg=SECTION,
            polling=400,  # longer than Material's 250 ms pause
        )
        page.hover("div.md-select")
        before = page.url
        # The address the other page opens at, noted as it opens: once it is in, its own tracking may
        # write the heading in view into the address as the page settles (the landing is checked below).
        opened: list[str] = []
        counterpart = server.url(page_url("worked-example.md", other))
        tab.listen("framenavigated", lambda frame: opened.append(frame.url) if frame.url.startswith(counterpart + "#") or frame.url == counterpart else None)
        # the other page's load, not the address this page's own tracking may still rewrite (a navigation too)
        with page.expect_navigation(url=lambda url: url.split("#")[0] == counterpart, wait_until="load"):
            click_in_place(page, f"a.md-select__link[hreflang='{other}']")
        assert opened and opened[0] == counterpart + f"#{SECTION}", f"the switch opened {opened[:1]}; the address before it was {before}"
        page.evaluate(READY_JS)  # the fonts are in, so the section has its final position
        page.wait_for_function(f"() => {{ const top = document.getElementById('{SECTION}').getBoundingClientRect().top; return top >= 0 && top < 200; }}")
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


def switch_language(tab, other: str, counterpart: str) -> str:
    """Click the language menu's ``other`` and return the address the other page opened at (noted as
    it opens). The address is all that is checked, so the other page is answered with an empty one, as
    the light crawl answers its language clicks (test_browser.click_language): a page load saved."""
    page = tab.page
    opened: list[str] = []
    tab.listen("framenavigated", lambda frame: opened.append(frame.url) if frame.url.split("#")[0] == counterpart else None)
    page.route(lambda url: url.split("#")[0] == counterpart, times=1,
               handler=lambda route: route.fulfill(status=200, content_type="text/html", body="<!doctype html><title>stub</title>"))
    page.hover("div.md-select")
    # the other page's navigation, not the address this page's own tracking may still rewrite (a navigation too)
    with page.expect_navigation(url=lambda url: url.split("#")[0] == counterpart, wait_until="commit"):
        click_in_place(page, f"a.md-select__link[hreflang='{other}']")
    assert opened, f"the switch opened {page.url}, not {counterpart}"
    return opened[0]


# The reader's heading some way down the screen, where Material's tracking still names the section
# before it: (language, window, page, heading).
NEAR_THE_TOP = [
    ("zh", DESKTOP, "worked-example.md", "step-3"),
    ("en", PHONE, "worked-example.md", "step-3"),
    ("zh", PHONE, "notebook.ipynb", "step-5"),
    ("en", DESKTOP, "notebook.ipynb", "steps-2-4"),
]


@pytest.mark.parametrize(("start", "viewport", "source", "heading"), NEAR_THE_TOP,
                         ids=[f"{lang}-{viewport['width']}px-{source.split('.')[0]}" for lang, viewport, source, _ in NEAR_THE_TOP])
def test_language_switch_keeps_the_section_whose_heading_is_near_the_top(tabs, server: SiteServer, start: str, viewport: dict, source: str, heading: str) -> None:
    other = "en" if start == "zh" else "zh"
    counterpart = server.url(page_url(source, other))
    with tabs.open(server, viewport=viewport, color_scheme="light") as tab:
        for down in (110, 150, 190):  # px from the top of the window
            tab.open(page_url(source, start))
            top = tab.page.evaluate("([id, down]) => { const h = document.getElementById(id); window.scrollBy(0, h.getBoundingClientRect().top - down);"
                                    " return h.getBoundingClientRect().top; }", [heading, down])
            assert abs(top - down) < 1, f"#{heading} could not be scrolled to {down} px (it is at {top:.0f} px)"
            landed = switch_language(tab, other, counterpart)
            assert landed == f"{counterpart}#{heading}", (
                f"with #{heading} {down} px down the {start} page ({viewport['width']} px), the switch opened {landed}")
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


def notebook_sections(lang: str) -> list[str]:
    """The ids of the notebook's section headings (<h2 id="…">), as its Markdown cells write them."""
    notebook = json.loads((ROOT / "docs" / lang / "notebook.ipynb").read_text(encoding="utf-8"))
    text = "".join("".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "markdown")
    return re.findall(r'<h2 id="([^"]+)"', text)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_notebook_has_contents(site: Path, lang: str) -> None:
    sections = notebook_sections(lang)
    assert len(sections) >= 3, f"the {lang} notebook has {sections} sections"
    contents = built_page(site, "notebook.ipynb", lang).select(".md-sidebar--secondary nav.md-nav--secondary a.md-nav__link")
    assert [link["href"] for link in contents] == [f"#{section}" for section in sections], "the notebook's contents"


@pytest.mark.parametrize("start", ["zh", "en"])
def test_the_notebook_section_scrolled_to_is_written_into_the_address(tabs, server: SiteServer, start: str) -> None:
    section = notebook_sections(start)[-1]
    with tabs.open(server, viewport=DESKTOP, color_scheme="light") as tab:
        page = tab.page
        tab.open(page_url("notebook.ipynb", start))
        # scroll as a reader does until Material's tracking writes the section (see the first test)
        page.wait_for_function(
            """(id) => {
              if (location.hash === `#${id}`) return (window.settled = (window.settled || 0) + 1) >= 3;
              window.settled = 0;
              window.nudge = window.nudge === 10 ? 11 : 10;
              window.scrollBy(0, document.getElementById(id).getBoundingClientRect().top - window.nudge);
              return false;
            }""",
            arg=section,
            polling=400,
        )
        other = "en" if start == "zh" else "zh"
        counterpart = server.url(page_url("notebook.ipynb", other))
        assert switch_language(tab, other, counterpart) == f"{counterpart}#{section}"
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"
