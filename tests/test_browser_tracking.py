"""The language switch keeps the section the reader has scrolled to, not only one reached through a
contents link: Material's navigation.tracking writes the section into the address as the reader
scrolls, and docs/assets/javascripts/language-switch.js carries it over to the other language."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from browser_support import DESKTOP, READY_JS, SiteServer
from site_pages import page_url

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
        with page.expect_navigation(wait_until="load"):
            page.locator(f"a.md-select__link[hreflang='{other}']").click()
        assert opened and opened[0] == counterpart + f"#{SECTION}", f"the switch opened {opened[:1]}; the address before it was {before}"
        page.evaluate(READY_JS)  # the fonts are in, so the section has its final position
        page.wait_for_function(f"() => {{ const top = document.getElementById('{SECTION}').getBoundingClientRect().top; return top >= 0 && top < 200; }}")
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"
