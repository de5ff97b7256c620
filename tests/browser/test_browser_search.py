"""Material's search in both languages: one index per language, a result count that matches the list,
and results that read as text (no TeX, no SVG, no build code from the “代码 / Code” tabs)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from browser_support import DESKTOP, SiteServer
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from repository import SITE_URL
from site_pages import page_url

SUBPATH = urlsplit(SITE_URL).path
# What must never reach a reader through search: TeX, markup of typeset formulas, the build code.
FORBIDDEN = ["\\(", "\\[", "\\begin", "\\frac", "\\text", "$$", "<svg", "<math", "<mjx", "print(display(", "qkv_site.values.formatting", "bmatrix(",
             "绘图代码", "Figure code"]  # a caption's link to the code that drew the figure
# (page language, query, a page that must be found); “对称” finds more pages than Material lists
# before the reader scrolls.
SEARCHES = [
    ("zh", "缩放", "why-sqrt-dk.md"),
    ("zh", "对称", "asymmetry.md"),
    ("en", "scaling", "worked-example.md"),
    ("en", "symmetric", "asymmetry.md"),
]

PAGE_ITEMS = ".md-search-result__list > .md-search-result__item"
SCROLL_RESULTS_JS = "() => { const box = document.querySelector('.md-search__scrollwrap'); box.scrollTop = box.scrollHeight; }"
COUNT_JS = r"""() => {
  const meta = document.querySelector(".md-search-result__meta").textContent;
  const pages = [...document.querySelectorAll(".md-search-result__list > .md-search-result__item")];
  return {
    meta,
    pages: pages.map((item) => item.querySelector("a.md-search-result__link").href),
    links: [...document.querySelectorAll(".md-search-result__list a.md-search-result__link")].map((a) => a.href),
    titles: [...document.querySelectorAll(".md-search-result__list .md-search-result__article h1, .md-search-result__list .md-search-result__article h2")].map((h) => h.textContent),
    text: document.querySelector(".md-search-result__list").innerText,
    html: document.querySelector(".md-search-result__list").innerHTML,
  };
}"""


def index(site: Path, lang: str) -> dict:
    folder = site if lang == "zh" else site / lang
    return json.loads((folder / "search" / "search_index.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_language_has_its_own_clean_index(site: Path, lang: str) -> None:
    docs = index(site, lang)["docs"]
    assert len(docs) > 40, f"the {lang} index holds only {len(docs)} sections"
    other_language = [doc["location"] for doc in docs if doc["location"].startswith("en/")]
    assert not other_language, f"the {lang} index lists pages of the other language: {other_language[:5]}"
    for doc in docs:
        for field in ("title", "text"):
            found = [marker for marker in FORBIDDEN if marker in doc[field]]
            assert not found, f"{lang} index, {doc['location']} {field}: {found} in …{doc[field][:200]}…"
        assert not re.search(r"[\\$]|<(?!/?code>|wbr/>)", doc["title"]), f"{lang} index: the title {doc['title']!r} is not plain text"
    titles = " ".join(doc["title"] for doc in docs)
    assert "√dₖ" in titles, f"the {lang} index lost the formula in the √dₖ headings: {titles[:300]}"


@pytest.mark.parametrize(("lang", "query", "expected"), SEARCHES, ids=[f"{lang}-{query}" for lang, query, _ in SEARCHES])
def test_result_count_matches_the_list(tabs, server: SiteServer, lang: str, query: str, expected: str) -> None:
    with tabs.open(server, viewport=DESKTOP, color_scheme="light") as tab:
        page = tab.page
        tab.open(page_url("worked-example.md", lang))
        box = page.locator("input.md-search__input")
        box.click()
        box.fill(query)
        box.press("End")  # Material reads the query on keyup
        page.wait_for_selector(".md-search-result__list > .md-search-result__item a.md-search-result__link")
        results = page.evaluate(COUNT_JS)
        counted = int(re.search(r"\d+", results["meta"].replace("\u200b", ""))[0])
        while len(results["pages"]) < counted:  # Material lists 10 pages, then more as the reader scrolls
            listed = len(results["pages"])
            page.evaluate(SCROLL_RESULTS_JS)
            try:  # at the tab's cap (browser_support.TIMEOUT_MS): the list stopped short of its count
                page.wait_for_function(f"() => document.querySelectorAll('{PAGE_ITEMS}').length > {listed}")
            except PlaywrightTimeout:
                break  # the assertion below names both numbers
            results = page.evaluate(COUNT_JS)
        assert counted == len(results["pages"]), f"{query!r} on a {lang} page: the count says {results['meta']!r}, the list shows {len(results['pages'])} pages"
        english = SUBPATH + page_url("index.md", "en").lstrip("/")
        paths = [urlsplit(url).path for url in results["links"]]
        foreign = [path for path in paths if path.startswith(english) != (lang == "en")]
        assert not foreign, f"{query!r} on a {lang} page lists pages of the other language: {foreign}"
        assert urlsplit(tab.server.url(page_url(expected, lang))).path in paths, f"{query!r} on a {lang} page did not find {expected}: {paths}"
        shown = [marker for marker in FORBIDDEN if marker in results["text"] or marker in results["html"]]
        assert not shown, f"{query!r} on a {lang} page shows {shown} in the results"
        assert not any("\\" in title or "$" in title for title in results["titles"]), f"result titles with TeX: {results['titles']}"
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


def test_the_index_reads_as_the_words_a_reader_types(site: Path) -> None:
    from site_pages import built_page

    from qkv_site.builder import compat
    from qkv_site.search.index import EXERCISE_BOOST, PAGE_BOOST

    for lang in ("zh", "en"):
        config = index(site, lang)["config"]
        assert "stemmer" not in config["pipeline"], f"the {lang} index stems its words, which Material's prefix queries never match"
        assert re.search(config["separator"], "scaling,") and re.search(config["separator"], "Attention（"), config["separator"]
        texts = "".join(doc["title"] + doc["text"] for doc in index(site, lang)["docs"]).replace("<wbr/>", "")
        page = built_page(site, "worked-example.md", lang)
        solutions = [p.get_text("", strip=True) for p in page.select("details.success p")
                     if len(p.get_text(strip=True)) > 20 and not p.select(".arithmatex, mjx-container, math, code")]
        assert solutions, f"the {lang} worked example has no folded solution to look for"
        indexed = [text for text in solutions if text[:16] in texts]
        assert not indexed, f"the {lang} index holds folded solutions: {indexed[:2]}"
        docs = index(site, lang)["docs"]
        exercises = [doc for doc in docs if re.search(r"#exercises?(-\d+)?$", doc["location"])]
        assert exercises and all(doc.get("boost") == EXERCISE_BOOST for doc in exercises), f"{lang}: exercise sections weigh as much as the rest"
        pages = [doc for doc in docs if "#" not in doc["location"]]
        assert pages and all(doc.get("boost") == PAGE_BOOST for doc in pages), f"{lang}: a page's own entry has not its boost"
        assert all("boost" not in doc for doc in docs if doc not in exercises + pages), f"{lang}: a section other than an exercise has a boost"
    chinese = [doc["text"] for doc in index(site, "zh")["docs"]]
    assert any("<wbr/>自注意力<wbr/>" in text for text in chinese), "jieba cut 自注意力 in the index (the user dictionary was not used)"
    # Material marks the cuts with a zero-width space, which a reader copying a result's text would copy too
    shown = [doc["location"] for lang in ("zh", "en") for doc in index(site, lang)["docs"] if "\u200b" in doc["title"] + doc["text"]]
    assert not shown, f"zero-width spaces in the text results show: {shown[:5]}"
    worker = (site / compat.MATERIAL_WORKER).read_text(encoding="utf-8")
    assert all(fix.right in worker for fix in compat.WORKER_CORRECTIONS), "the built site's search worker is Material's uncorrected one"
