"""Every page tells search engines and link previews what it is about in its own words: one
sentence, in the page's language, different on every page (not the site's description)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from browser_support import SiteServer
from repository import ROOT
from site_pages import nav_sources, page_url


def site_descriptions() -> set[str]:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    return set(re.findall(r"^\s*site_description:\s*\"?(.+?)\"?\s*$", text, re.MULTILINE))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_page_has_its_own_description(browser, server: SiteServer, lang: str) -> None:
    context = browser.new_context()
    # Only the HTML documents: the description is in the head, nothing else needs to load.
    context.route("**/*", lambda route: route.continue_() if route.request.resource_type == "document" and urlsplit(route.request.url).netloc == server.host else route.abort())
    page = context.new_page()
    descriptions: dict[str, str] = {}
    try:
        for source in nav_sources():
            page.goto(server.url(page_url(source, lang)), wait_until="domcontentloaded")
            descriptions[source] = page.evaluate("() => document.querySelector('meta[name=description]')?.content ?? ''")
    finally:
        context.close()
    generic = site_descriptions()
    for source, text in descriptions.items():
        where = f"{source} ({lang})"
        assert text.strip(), f"{where} has no description"
        assert text not in generic, f"{where} uses the site's description"
        if lang == "zh":
            assert text.endswith("。") and text.count("。") == 1 and re.search(r"[\u4e00-\u9fff]", text), f"{where}: not one Chinese sentence: {text}"
        else:
            assert text.endswith(".") and not re.search(r"[.!?]\s", text) and not re.search(r"[\u4e00-\u9fff]", text), f"{where}: not one English sentence: {text}"
        assert 20 <= len(text) <= 220, f"{where}: {len(text)} characters ({text})"
    repeated = {text for text in descriptions.values() if list(descriptions.values()).count(text) > 1}
    assert not repeated, f"pages of the {lang} site share a description: {repeated}"
