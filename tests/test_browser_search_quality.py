"""Search as a learner uses it: the words a reader types find the section that answers them.

Each query is typed into Material's search box on a page of its language, in Chromium against the built
site; the results are read after scrolling the list to its end (Material renders them in batches as the
list scrolls). A result's rank is its place among the links of the list, top to bottom, in Material's
order: a page's own link, then its sections by score (those below the page's best hit folded under
“N more on this page”), then the next page. The section must be among the first 3. A Chinese query
must be searched as the words it is made of: every highlighted word of the results begins with one of
them (Material searches each word as a prefix), so 缩放 highlights 缩放, never 缩 or 缩小.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from browser_support import DESKTOP, LocalOnly, SiteServer
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from site_pages import page_url

TOP = 3
# How long a condition may take to come true before the test fails naming it (a busy 2-core machine
# runs the search worker slowly; the wait ends as soon as the condition holds).
WAIT_MS = 30_000
# (query, page, heading anchor or None for the page's own link): what a learner types, and the section
# that answers it.
QUERIES = {
    "zh": [
        ("缩放", "why-sqrt-dk.md", None),
        ("点积", "why-sqrt-dk.md", "variance-derivation"),
        ("复杂度", "complexity.md", "complexity-analysis"),
        ("为什么除以", "why-sqrt-dk.md", None),
        ("Softmax 归一化", "worked-example.md", "step-4"),
        ("自注意力", "index.md", None),
        ("交叉注意力", "glossary.md", None),
        ("对称", "asymmetry.md", None),
        ("多头", "beyond-quadratic.md", "kv-cache"),
        ("掩码", "asymmetry.md", "exercise-3"),
        ("在线 Softmax", "beyond-quadratic.md", "online-softmax"),
        ("KV Cache", "beyond-quadratic.md", "kv-cache"),
        ("子空间", "why-three-matrices.md", "subspace-projection"),
        ("方差", "why-sqrt-dk.md", "variance-derivation"),
        ("分块注意力", "beyond-quadratic.md", "tiled-attention"),
        ("加权求和", "worked-example.md", "step-5"),
    ],
    "en": [
        ("complexity", "complexity.md", "complexity-analysis"),
        ("scaling", "why-sqrt-dk.md", "three-strategies"),
        ("why divide", "worked-example.md", "step-3"),
        ("softmax", "worked-example.md", "step-4"),
        ("dot product", "why-sqrt-dk.md", "variance-derivation"),
        ("symmetric", "asymmetry.md", None),
        ("cross-attention", "self-vs-cross.md", "why-cross-attention"),
        ("causal mask", "beyond-quadratic.md", "causal-skipping"),  # how the mask's hidden tiles are skipped
        ("multi-head", "beyond-quadratic.md", "kv-cache"),
        ("online softmax", "beyond-quadratic.md", "online-softmax"),
        ("kv cache", "beyond-quadratic.md", "kv-cache"),
        ("projection", "why-three-matrices.md", "subspace-projection"),
        ("variance", "why-sqrt-dk.md", "variance-derivation"),
        ("tiled attention", "beyond-quadratic.md", "tiled-attention"),
        ("weighted sum", "worked-example.md", "step-5"),
    ],
}
# The words a Chinese query is made of, where it is more than one (the browser cuts it as jieba cut the pages).
WORDS = {
    "为什么除以": ["为什么", "除以"], "Softmax 归一化": ["softmax", "归一化"], "在线 Softmax": ["在线", "softmax"],
    "KV Cache": ["kv", "cache"], "分块注意力": ["分块", "注意力"], "加权求和": ["加权", "求和"],
}
CASES = [(lang, *case) for lang, cases in QUERIES.items() for case in cases]

ITEMS = ".md-search-result__list > .md-search-result__item"
# The state of the result list: the count Material announces, the pages listed so far, every link.
STATE_JS = """() => {
  const meta = document.querySelector(".md-search-result__meta");
  return {
    meta: meta ? meta.textContent.replace(/\\u200b/g, "") : "",
    pages: document.querySelectorAll(".md-search-result__list > .md-search-result__item").length,
    links: [...document.querySelectorAll(".md-search-result__list a.md-search-result__link")].map((a) => ({
      href: a.href, title: (a.querySelector("h1, h2") || a).textContent.trim(), text: a.innerText,
      marks: [...a.querySelectorAll("mark")].map((m) => m.textContent),
    })),
  };
}"""
# True once every page Material counted is listed. Material lists 10 pages, then 4 more each time the
# list's end comes into view: each look scrolls the list, alternately to a little above its end and to
# its end, as a reader scrolling down does.
ALL_LISTED_JS = """() => {
  const box = document.querySelector(".md-search__scrollwrap");
  window.qkvScrolledToEnd = !window.qkvScrolledToEnd;
  box.scrollTop = window.qkvScrolledToEnd ? box.scrollHeight : Math.max(0, box.scrollHeight - box.clientHeight - 200);
  const meta = document.querySelector(".md-search-result__meta").textContent.replace(/\\u200b/g, "");
  const counted = +((meta.match(/\\d+/) || [NaN])[0]);
  return document.querySelectorAll(".md-search-result__list > .md-search-result__item").length >= counted;
}"""


def _wait(page, condition: str, what: str, arg=None) -> None:
    """Wait for the JS ``condition`` to hold; at the cap, fail naming ``what`` was waited for."""
    try:
        page.wait_for_function(condition, arg=arg, timeout=WAIT_MS, polling=100)
    except PlaywrightTimeout:
        pytest.fail(f"waited {WAIT_MS // 1000} s for {what}", pytrace=False)


def search(page, query: str) -> list[dict]:
    """Type ``query`` into the open page's search box; every result link, top to bottom, once all are listed.

    The box is emptied first and the list waited on until it is empty, so no result of the last query
    is on screen when this one's are read (the page, and the index its search worker built, stay)."""
    box = page.locator("input.md-search__input")
    box.click()
    box.fill("")
    box.press("End")
    _wait(page, f"() => document.querySelector('{ITEMS}') === null", f"the results of the last query to go before {query!r}")
    box.fill(query)
    box.press("End")  # Material reads the query on keyup
    _wait(page, f"() => document.querySelector('{ITEMS} a.md-search-result__link') !== null",
          f"Material's search to list a result for {query!r}")
    _wait(page, ALL_LISTED_JS, f"Material to list every page it counted for {query!r} while the list is scrolled down")
    return page.evaluate(STATE_JS)["links"]


def rank(links: list[dict], server: SiteServer, lang: str, source: str, anchor: str | None) -> int | None:
    """The 1-based place of the section among ``links``, ``None`` when it is not there."""
    path = urlsplit(server.url(page_url(source, lang))).path
    for place, link in enumerate(links, start=1):
        parts = urlsplit(link["href"])
        if parts.path == path and (parts.fragment or None) == anchor:
            return place
    return None


@pytest.fixture(scope="module")
def tabs(browser, server: SiteServer):
    """One tab per language, open on a page of that language: every query of the language is searched there."""
    opened = {}
    try:
        for lang in QUERIES:
            tab = LocalOnly(browser, server, viewport=DESKTOP, color_scheme="light")
            tab.open(page_url("worked-example.md", lang))
            opened[lang] = tab
        yield opened
    finally:
        for tab in opened.values():
            tab.__exit__()


def _listed(links: list[dict], count: int) -> list[str]:
    """The first ``count`` links as a reader reads them: place, address, title."""
    return [f"{place}. {urlsplit(link['href']).path}#{urlsplit(link['href']).fragment} {link['title']!r}"
            for place, link in enumerate(links[:count], start=1)]


@pytest.mark.parametrize(("lang", "query", "source", "anchor"), CASES, ids=[f"{lang}-{query}" for lang, query, *_ in CASES])
def test_a_query_finds_its_section_in_the_top_3(tabs, server: SiteServer, lang: str, query: str, source: str, anchor: str | None) -> None:
    tab = tabs[lang]
    links = search(tab.page, query)
    place = rank(links, server, lang, source, anchor)
    target = f"{source}#{anchor}" if anchor else source
    print(f"RANK {lang}\t{query}\t{target}\t{place}\t" + " | ".join(re.sub(r"[\s\u200b]+", " ", link["title"]) for link in links[:TOP]))
    where = "not found" if place is None else f"at {place}"
    assert place is not None and place <= TOP, f"{query!r} ({lang}): {target} is {where}; the list begins:\n" + "\n".join(_listed(links, 6))
    if lang == "zh":
        words = [word.lower() for word in WORDS.get(query, [query])]
        stray = sorted({mark for link in links for mark in link["marks"] if not mark.lower().startswith(tuple(words))})
        assert not stray, f"{query!r} highlights {stray}: it was not searched as the words {words}"
    assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


@pytest.mark.parametrize(("lang", "query"), [("zh", "Softmax"), ("en", "softmax")])
def test_a_step_of_the_article_ranks_above_the_exercises_of_its_page(tabs, server: SiteServer, lang: str, query: str) -> None:
    tab = tabs[lang]
    links = search(tab.page, query)
    step = rank(links, server, lang, "worked-example.md", "step-4")
    exercises = {f"exercise-{n}": rank(links, server, lang, "worked-example.md", f"exercise-{n}") for n in range(1, 5)}
    assert step is not None, f"{query!r} ({lang}) does not find step 4 of the worked example"
    above = {anchor: place for anchor, place in exercises.items() if place is not None and place < step}
    assert not above, f"{query!r} ({lang}): exercises {above} rank above step 4 (at {step})"
