"""Search as a learner uses it: the words a reader types find the section that answers them.

Each query is typed into Material's search box on a page of its language, in Chromium against the built
site. A result's rank is its place among the links of the list, top to bottom, in Material's order: a
page's own link, then its sections by score (those below the page's best hit folded under “N more on
this page”), then the next page. The section must be among the first 3.

Two sets of queries: the words a learner types (`QUERIES`, each with the section that answers it; their
results are read after scrolling the list to its end, since Material renders them in batches as the list
scrolls, and their ranks are printed), and every name of every page and heading in both languages, read
from the nav and the built pages (`site_names`): each finds a section of that name, or one whose name
begins with it, in the top 3.

What a result shows is checked on the way: no zero-width space between its words (it would be copied
with the text), no word both highlighted and listed as missing, and every link carries the words it
matched for the page to highlight (``?h=…``). A Chinese query must be searched as the words it is made
of: every highlighted word of the results begins with one of them (Material searches each word as a
prefix), so 缩放 highlights 缩放, never 缩 or 缩小.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from browser_support import DESKTOP, LocalOnly, SiteServer, wait_until
from bs4 import BeautifulSoup, Tag
from site_pages import CONFIG, SITE_MAP, built_path, page_url

from qkv_site.formulas.plain_text import plain_text
from qkv_site.glossary import TERMS
from qkv_site.search.text import CELLS
from qkv_site.site_map import nav_titles

TOP = 3
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
        ("交叉注意力", "self-vs-cross.md", "why-cross-attention"),  # the page says Cross-Attention, the glossary names it
        ("根号", "why-sqrt-dk.md", None),  # √ in its title
        ("对称", "asymmetry.md", None),
        ("多头", "beyond-quadratic.md", "kv-cache"),
        ("掩码", "beyond-quadratic.md", "causal-skipping"),  # the glossary's section on the causal mask, which says 遮罩
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
        ("square root", "why-sqrt-dk.md", None),  # √ in its title
        ("learned attention", "learned-attention.md", None),  # its address
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
# The pages each named by its nav title and headings, per language: every page of the nav.
PAGE_CASES = [(lang, source) for source in SITE_MAP.nav for lang in SITE_MAP.languages]

ITEMS = ".md-search-result__list > .md-search-result__item"
# The state of the result list: the count Material announces, the pages listed so far, every link.
STATE_JS = """() => {
  const meta = document.querySelector(".md-search-result__meta");
  return {
    meta: meta ? meta.textContent.replace(/\\u200b/g, "") : "",
    pages: document.querySelectorAll(".md-search-result__list > .md-search-result__item").length,
    links: [...document.querySelectorAll(".md-search-result__list a.md-search-result__link")].map((a) => ({
      href: a.href, title: (a.querySelector("h1, h2") || a).textContent.trim(), text: a.textContent,
      lines: a.innerText.split("\\n").map((line) => line.trim()).filter(Boolean),
      marks: [...a.querySelectorAll("mark")].map((m) => m.textContent),
      missing: [...a.querySelectorAll(".md-search-result__terms del")].map((d) => d.textContent),
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


# Marks the results on screen as those of the last query (Material lists a new query's results afresh);
# true if the search box has the focus, where the last query left it.
MARK_STALE_JS = f"""() => {{
  document.querySelectorAll('{ITEMS}').forEach((item) => {{ item.dataset.qkvStale = ''; }});
  return document.activeElement === document.querySelector('input.md-search__input');
}}"""
# True once no result of the last query is left and one of this query's is listed.
FRESH_JS = f"() => document.querySelector('{ITEMS}[data-qkv-stale]') === null && document.querySelector('{ITEMS} a.md-search-result__link') !== null"


def search(page, query: str, every: bool = True) -> list[dict]:
    """Type ``query`` into the open page's search box; its result links, top to bottom (with ``every``,
    once the list is scrolled to its end and all are listed; else what is listed at once, the first batch or more
    (the list keeps its scroll from the last query), which holds the top 3).

    The results on screen are marked before the query is typed, and read once none of them is left, so
    no result of the last query is read as one of this one's (the page, and the index its search worker
    built, stay). Material searches only a query that differs from the last: the same query again is
    typed into an emptied box. The box is clicked when it does not have the focus (the first query of a
    page, or one after a click elsewhere), which opens the search."""
    box = page.locator("input.md-search__input")
    if box.input_value() == query:
        box.fill("")
        box.press("End")
        wait_until(page, f"() => document.querySelector('{ITEMS}') === null", f"the results of {query!r} to go before it is typed again", polling=100)
    if not page.evaluate(MARK_STALE_JS):
        box.click()  # opens the search
    box.fill(query)
    box.press("End")  # Material reads the query on keyup
    wait_until(page, FRESH_JS, f"Material's search to list a result for {query!r} in place of the last query's", polling=100)
    if every:
        wait_until(page, ALL_LISTED_JS, f"Material to list every page it counted for {query!r} while the list is scrolled down", polling=100)
    return page.evaluate(STATE_JS)["links"]


def rank(links: list[dict], server: SiteServer, lang: str, targets: set[tuple[str, str | None]]) -> int | None:
    """The 1-based place of the first of the sections ``targets`` ((page, anchor) pairs) among ``links``."""
    wanted = {(urlsplit(server.url(page_url(source, lang))).path, anchor) for source, anchor in targets}
    for place, link in enumerate(links, start=1):
        parts = urlsplit(link["href"])
        if (parts.path, parts.fragment or None) in wanted:
            return place
    return None


def heading_name(heading: Tag) -> str:
    """A heading as a reader reads it: its formulas as their plain text (√dₖ), without its permalink."""
    heading = BeautifulSoup(str(heading), "html.parser").find()
    assert isinstance(heading, Tag)
    for link in heading.select("a.headerlink"):
        link.decompose()
    for formula in heading.select(".arithmatex"):
        math = formula.find("math")
        formula.replace_with(plain_text(str(math)) if math else formula.get_text())
    return " ".join(heading.get_text().split())


@cache
def site_names(site: Path, lang: str) -> list[tuple[str, str, str | None]]:
    """Every name of a section in ``lang``: (name, page, anchor). A page is named by its nav title and its
    first heading (Material's index makes that heading the page's own entry, or a section of it); a
    section by its heading."""
    names = [(entry.titles[lang], entry.source, None) for entry in nav_titles(CONFIG)]
    for source in SITE_MAP.nav:
        article = BeautifulSoup(built_path(site, source, lang).read_text(encoding="utf-8"), "html.parser").select_one("article")
        assert article is not None, f"{source} ({lang}) has no <article>"
        for number, heading in enumerate(article.select("h1[id], h2[id], h3[id], h4[id], h5[id], h6[id]")):
            if number == 0 and heading.name == "h1":
                names.append((heading_name(heading), source, None))
            names.append((heading_name(heading), source, heading["id"]))
    return names


def named_by(name: str, names: list[tuple[str, str, str | None]]) -> set[tuple[str, str | None]]:
    """The sections a reader typing ``name`` may be looking for: those named so, or by a longer name that begins with it."""
    typed = name.casefold()
    return {(source, anchor) for other, source, anchor in names if other.casefold().startswith(typed)}


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


def what_results_show(query: str, links: list[dict]) -> list[str]:
    """What is wrong in how the results of ``query`` read (see the module's docstring)."""
    wrong = []
    for link in links:
        where = f"{query!r} → {urlsplit(link['href']).path}#{urlsplit(link['href']).fragment}"
        if "\u200b" in link["text"]:
            wrong.append(f"{where}: a zero-width space in the result's text")
        marked = {mark.casefold() for mark in link["marks"]}
        both = [term for term in link["missing"] if term.casefold() in marked]
        if both or any("*" in term for term in link["missing"]):
            wrong.append(f"{where}: missing {link['missing']}, highlighted {link['marks']}")
        if not parse_qs(urlsplit(link["href"]).query).get("h", [""])[0].strip():
            wrong.append(f"{where}: its link has no words to highlight ({link['href']})")
    return wrong


@pytest.mark.parametrize(("lang", "query", "source", "anchor"), CASES, ids=[f"{lang}-{query}" for lang, query, *_ in CASES])
def test_a_query_finds_its_section_in_the_top_3(tabs, server: SiteServer, lang: str, query: str, source: str, anchor: str | None) -> None:
    tab = tabs[lang]
    links = search(tab.page, query)
    place = rank(links, server, lang, {(source, anchor)})
    target = f"{source}#{anchor}" if anchor else source
    pages = list(dict.fromkeys(urlsplit(link["href"]).path for link in links))
    page_place = pages.index(urlsplit(server.url(page_url(source, lang))).path) + 1 if place else None
    print(f"RANK {lang}\t{query}\t{target}\tlink {place} of {len(links)}\tpage {page_place} of {len(pages)}\t"
          + " | ".join(re.sub(r"\s+", " ", link["title"]) for link in links[:TOP]))
    where = "not found" if place is None else f"at {place}"
    assert place is not None and place <= TOP, f"{query!r} ({lang}): {target} is {where}; the list begins:\n" + "\n".join(_listed(links, 6))
    if lang == "zh":
        words = [word.lower() for word in WORDS.get(query, [query])]
        stray = sorted({mark for link in links for mark in link["marks"] if not mark.lower().startswith(tuple(words))})
        assert not stray, f"{query!r} highlights {stray}: it was not searched as the words {words}"
    wrong = what_results_show(query, links)
    assert not wrong, "\n".join(wrong)
    assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


# The first results of a name, by (language, name): a name several pages share (练习, Exercises) is searched once.
FIRST_RESULTS: dict[tuple[str, str], list[dict]] = {}


@pytest.mark.parametrize(("lang", "source"), PAGE_CASES, ids=[f"{lang}-{source}" for lang, source in PAGE_CASES])
def test_every_name_of_a_page_and_its_headings_finds_it_in_the_top_3(tabs, site: Path, server: SiteServer, lang: str, source: str) -> None:
    names = site_names(site, lang)
    failed = []
    for name in dict.fromkeys(name for name, page, _ in names if page == source):
        targets = named_by(name, names)
        if (lang, name) not in FIRST_RESULTS:
            FIRST_RESULTS[lang, name] = search(tabs[lang].page, name, every=False)
        links = FIRST_RESULTS[lang, name]
        place = rank(links, server, lang, targets)
        if place is None or place > TOP:
            where = "not found" if place is None else f"at {place}"
            failed.append(f"{name!r}: {where}; the list begins {_listed(links, 4)}")
        failed += what_results_show(name, links[:TOP])
    assert not failed, f"{source} ({lang}):\n" + "\n".join(failed)


@pytest.mark.parametrize(("lang", "query"), [("zh", "Softmax"), ("en", "softmax")])
def test_a_step_of_the_article_ranks_above_the_exercises_of_its_page(tabs, server: SiteServer, lang: str, query: str) -> None:
    tab = tabs[lang]
    links = search(tab.page, query)
    step = rank(links, server, lang, {("worked-example.md", "step-4")})
    exercises = {f"exercise-{n}": rank(links, server, lang, {("worked-example.md", f"exercise-{n}")}) for n in range(1, 5)}
    assert step is not None, f"{query!r} ({lang}) does not find step 4 of the worked example"
    above = {anchor: place for anchor, place in exercises.items() if place is not None and place < step}
    assert not above, f"{query!r} ({lang}): exercises {above} rank above step 4 (at {step})"


def _row(term, lang: str) -> list[str]:
    """The cells of ``term``'s row in the glossary of ``lang`` (docs/*/glossary.md)."""
    return [term.text, term.zh, term.en, term.zh_meaning] if lang == "zh" else [term.text, term.en, term.zh, term.en_meaning]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_glossary_result_shows_the_row_of_its_term(tabs, server: SiteServer, lang: str) -> None:
    # a term whose name in this language is in no other row, so that the query matches its row alone
    name = {term: (term.zh if lang == "zh" else term.en) for term in TERMS}
    term = next(term for term in TERMS if not any(name[term].casefold() in CELLS.join(_row(other, lang)).casefold()
                                                  for other in TERMS if other is not term))
    links = search(tabs[lang].page, name[term])
    glossary = next((link for link in links if urlsplit(link["href"]).path == urlsplit(server.url(page_url("glossary.md", lang))).path), None)
    assert glossary is not None, f"{name[term]!r} ({lang}) does not find the glossary"
    assert CELLS.join(_row(term, lang)) in glossary["lines"], f"the glossary's result does not show the row of {term.text} on a line of its own: {glossary['lines']}"
    others = [line for line in glossary["lines"] for other in TERMS if other is not term and line.startswith(f"{other.text}{CELLS}")]
    assert not others, f"the glossary's result shows rows the query does not match: {others}"


def test_a_pages_own_link_highlights_the_words_its_sections_matched(tabs, server: SiteServer) -> None:
    """A page listed for its sections' sake (its own entry matches nothing) links with their words, which the page highlights."""
    page = tabs["zh"].page
    query = "方差"
    links = search(page, query)
    own = [link for link in links if not urlsplit(link["href"]).fragment and not link["marks"]]
    assert own, f"{query!r}: every page's own entry matched; no link to try"
    link = own[0]
    assert parse_qs(urlsplit(link["href"]).query).get("h") == [query], link["href"]
    page.locator(f'a.md-search-result__link[href="{link["href"]}"]').first.click()
    page.wait_for_url(lambda url: "h=" in url)
    wait_until(page, "() => document.querySelector('article mark[data-md-highlight]') !== null",
               f"the page {link['href']} to highlight {query!r}", polling=100)
    tabs["zh"].open(page_url("worked-example.md", "zh"))  # the module's tab goes back where the other tests expect it
