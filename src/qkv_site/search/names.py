"""What a section is searched by besides its heading and text: two fields of the index that results never show.

Material's index holds each section's heading (``title``) and text; a reader also looks a section up by
words it does not say. Each entry of the index gets, where it has any:

- ``names`` (weighed as a heading: the title field's boost): the words of its other names that its heading lacks:
  the page's title in the nav (首页, “Why scale by √dₖ?”), the words of the page's address
  (``learned-attention/``), the names of the glossary terms it explains (`qkv_site.glossary.Term.section`:
  交叉注意力 finds “为什么需要 Cross-Attention？”) and the words a reader types for a symbol of its heading's
  formulas (`SYMBOL_WORDS`: 根号 and “square root” for √). A heading of one word is a name of its section
  too, so that the section titled 输入 comes before those whose longer headings hold the word.
- ``about`` (`ABOUT_BOOST`, between the text's 1 and a heading's): a page's own entry holds the page's
  description, the one sentence saying what the page is about (为什么除以 finds the page on √dₖ).

The words are cut as Material cuts the index: Chinese by jieba (with the site's user dictionary, which
Material's plugin has loaded), everything by the index's separator, in lower case.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from qkv_site.glossary import TERMS, Term
from qkv_site.search.words import quiet_jieba

# A description says what a page is about, not what it is called: it counts more than any number of
# mentions in the text and less than a heading (chosen within the range over which every query of
# tests/browser/test_browser_search_quality.py finds its section: 150 to 500, with index.PAGE_BOOST).
ABOUT_BOOST = 300.0
# The words a reader types for a symbol that a heading shows in a formula (its plain text, as the index holds it).
SYMBOL_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "√": {"zh": ("根号", "平方根"), "en": ("square root",)},
}
_TAG = re.compile(r"<[^>]+>")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")


@dataclass(frozen=True)
class SearchPage:
    """What the index does not hold of a page: its address, language, source, nav title and description."""

    url: str  # as the index's locations begin: "en/self-vs-cross/", "" for the home page at the root
    lang: str
    source: str  # inside the language folder: "self-vs-cross.md"
    nav_title: str
    description: str


def words(text: str, separator: re.Pattern[str]) -> list[str]:
    """The index's words of ``text`` (a tag and jieba's cut end a word too), in order, repeats kept.

    >>> words("第三步<wbr/>：<wbr/>缩放（除以 √dₖ）Scale", re.compile(r"[\\s（）：]+"))
    ['第三步', '缩放', '除以', '√dₖ', 'scale']
    """
    text = html.unescape(_TAG.sub(" ", text))
    jieba = quiet_jieba()
    cut = _HAN.sub(lambda run: "\u200b" + "\u200b".join(jieba.cut(run.group(0))) + "\u200b", text)
    return [word.lower() for piece in cut.split("\u200b") for word in separator.split(piece) if word]


def heading_words(title: str, separator: re.Pattern[str]) -> set[str]:
    """The words of a heading as the index holds it (Material has already cut its Chinese)."""
    return set(words(title, separator))


def _glossary_names(lang_pages: Mapping[str, SearchPage], terms: tuple[Term, ...]) -> dict[str, list[str]]:
    """{location: the names of the glossary terms explained there} for one language's pages, by source."""
    names: dict[str, list[str]] = {}
    for term in terms:
        source, _, anchor = term.section.partition("#")
        page = lang_pages.get(source)
        if page is None:
            raise ValueError(f"the glossary's term {term.text!r} is explained in {term.section}, a page the site "
                             f"does not build (qkv_site.glossary.TERMS)")
        location = page.url + (f"#{anchor}" if anchor else "")
        names.setdefault(location, []).extend([term.text, term.zh, term.en])
    return names


def add_names(index: dict[str, Any], pages: Iterable[SearchPage], terms: tuple[Term, ...] = TERMS) -> None:
    """Give every entry of Material's (merged) ``index`` its ``names`` and ``about`` fields, and the fields their boosts."""
    separator = re.compile(index["config"]["separator"])
    by_url = {page.url: page for page in pages}
    entries = []
    for doc in index["docs"]:
        url, _, anchor = doc["location"].partition("#")
        if url not in by_url:
            raise ValueError(f"the search index has an entry {doc['location']!r} for a page the build did not record")
        entries.append((doc, by_url[url], anchor))
    glossary: dict[str, list[str]] = {}
    for lang in {page.lang for _, page, _ in entries}:  # mkdocs-static-i18n builds one language, then merges them
        glossary.update(_glossary_names({page.source: page for page in by_url.values() if page.lang == lang}, terms))
    found = set()
    for doc, page, anchor in entries:
        heading = heading_words(doc["title"], separator)
        others: list[str] = []
        if not anchor:  # the page's own entry: its title in the nav, the words of its address
            stem = page.source.rsplit(".", 1)[0]
            others += [page.nav_title, *([] if stem == "index" else stem.split("-"))]
        others += glossary.get(doc["location"], [])
        others += [word for symbol, said in SYMBOL_WORDS.items() if symbol in doc["title"] for word in said[page.lang]]
        names = list(dict.fromkeys(word for word in words(" ".join(others), separator) if word not in heading))
        if len(heading) == 1:
            names += heading
        if names:
            doc["names"] = " ".join(names)
        if not anchor and page.description:
            doc["about"] = " ".join(words(page.description, separator))
        found.add(doc["location"])
    missing = sorted(location for location in glossary if location not in found)
    if missing:
        raise ValueError(f"the glossary's terms are explained in sections the search index does not hold: {missing} "
                         "(qkv_site.glossary.Term.section: a page and the id of one of its headings)")
    fields = index["config"]["fields"]
    fields["names"] = {"boost": fields["title"]["boost"]}
    fields["about"] = {"boost": ABOUT_BOOST}
