"""Checks of the built HTML that a strict build does not make: pages, math, hosts, languages, anchors, and step
names that are words, not code identifiers."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest
from bs4 import BeautifulSoup
from page_sources import built_article
from repository import LANGUAGES, SITE_URL
from site_pages import SITE_MAP, built_path, is_pdf_edition, nav_sources, page_url, parsed_page

PAGES = nav_sources()
EXTERNAL = re.compile(r"^(https?:)?//", re.IGNORECASE)


def parse(path: Path) -> BeautifulSoup:
    """A page's own parse, for a test that takes parts out of it (the others read `parsed_page`'s shared one)."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def article(soup: BeautifulSoup) -> BeautifulSoup:
    content = soup.select_one("article.md-content__inner")
    assert content is not None, "page has no Material article"
    return content


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("source", PAGES)
def test_every_nav_page_is_built_in_both_languages(site: Path, source: str, lang: str) -> None:
    page = built_path(site, source, lang)
    assert page.is_file(), f"{source} ({lang}) was not built at {page}"
    html = page.read_text(encoding="utf-8")
    assert f'<html lang="{lang}"' in html, f"{page} does not declare lang={lang}"


def test_no_page_carries_the_tests_code_block_marks(site: Path) -> None:
    # <!--pytest.mark.skip(reason=…)--> and <!--pytest-codeblocks:…--> are for the tests, which read the
    # Markdown; the sources have them (or this would check nothing), the served HTML does not.
    sources = [path.read_text(encoding="utf-8") for path in (Path(__file__).parents[2] / "docs").rglob("*.md")]
    assert any("<!--pytest.mark." in text for text in sources)
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 2 * len(PAGES)
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert "pytest.mark" not in html and "pytest-codeblocks" not in html, page.relative_to(site)


# What Markdown leaves as text when it did not read a table (a table row glued to the paragraph
# above it, say): a delimiter row such as "| :--- | ---: |", or a row of cells "| a | b |".
UNREAD_TABLE = re.compile(r"^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$|^\s*\|([^|\n]+\|){2,}\s*$", re.MULTILINE)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("source", PAGES)
def test_no_table_is_left_as_text(site: Path, source: str, lang: str) -> None:
    soup = parse(built_path(site, source, lang))
    body = article(soup)
    for node in body.select("pre, code, script, style, annotation"):
        node.decompose()
    for block in body.select("p"):
        text = block.get_text("\n")
        assert not UNREAD_TABLE.search(text), f"{source} ({lang}): a table was left as text:\n{text[:600]}"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("source", PAGES)
def test_no_raw_tex_in_the_built_page(site: Path, source: str, lang: str) -> None:
    # Formulas are typeset when the site is built: no TeX survives (the MathML carries no x-tex
    # annotation either). tests/browser/test_browser_static_math.py checks the pages in a browser.
    soup = parse(built_path(site, source, lang))
    for node in soup.select("annotation, pre, code, script, style"):
        node.decompose()
    places = {"article": article(soup).get_text(" "), "navigation and tables of contents": " ".join(nav.get_text(" ") for nav in soup.select("nav")),
              "title": soup.title.get_text()}
    for where, text in places.items():
        for marker in ("$$", "\\(", "\\[", "\\begin{", "\\frac", "\\sqrt"):
            assert marker not in text, f"raw TeX {marker!r} in the {where} of {source} ({lang}): …{text[max(0, text.find(marker) - 80):text.find(marker) + 80]}…"
        inline_dollars = re.findall(r"\$[^$\s][^$]*\$", text)
        assert not inline_dollars, f"unprocessed $…$ in the {where} of {source} ({lang}): {inline_dollars[:3]}"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("source", PAGES)
def test_every_formula_is_typeset_svg_with_mathml(site: Path, source: str, lang: str) -> None:
    soup = parsed_page(built_path(site, source, lang))
    for wrapper in soup.select(".arithmatex"):
        containers = wrapper.select("mjx-container")
        assert len(containers) == 1, f"{source} ({lang}): a formula wrapper holds {len(containers)} typeset formulas: {str(wrapper)[:200]}"
        svg, mathml = containers[0].select_one("svg"), containers[0].select_one("mjx-assistive-mml > math")
        assert svg is not None and svg.get("aria-hidden") == "true" and svg.get("focusable") == "false", f"{source} ({lang}): {str(containers[0])[:200]}"
        assert mathml is not None and mathml.get_text(strip=True), f"{source} ({lang}): a formula without MathML"
        assert not wrapper.select("[tabindex]"), f"{source} ({lang}): a formula is a tab stop"
    ids = [node["id"] for node in soup.select("mjx-container [id]")]
    assert len(ids) == len(set(ids)), f"{source} ({lang}): the formulas' glyph ids repeat"


def test_no_math_engine_on_any_page(site: Path) -> None:
    assert not (site / "assets" / "mathjax").exists(), "MathJax's browser bundle is still copied into the site"
    for page in site.rglob("*.html"):
        for script in parsed_page(page).find_all("script"):
            source = (script.get("src") or "") + (script.string or "")
            assert not re.search(r"mathjax|katex", source, re.IGNORECASE), f"{page.relative_to(site)} loads or configures a math engine: {source[:120]}"


def test_no_resource_from_another_host(site: Path) -> None:
    offenders: list[str] = []
    for page in site.rglob("*.html"):
        soup = parsed_page(page)
        for tag, attribute in (("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"), ("source", "src")):
            for node in soup.find_all(tag):
                if tag == "link" and set(node.get("rel") or []) & {"canonical", "alternate"}:
                    continue  # names the page's own published URL; nothing is fetched
                value = node.get(attribute) or ""
                if EXTERNAL.match(value):
                    offenders.append(f"{page.relative_to(site)}: <{tag} {attribute}={value}>")
        for style in soup.find_all(style=True):
            offenders += [f"{page.relative_to(site)}: style url({u})" for u in re.findall(r"url\(['\"]?(https?:)?//", style["style"])]
    for stylesheet in site.rglob("*.css"):
        for url in re.findall(r"url\(\s*['\"]?((?:https?:)?//[^)'\"]+)", stylesheet.read_text(encoding="utf-8", errors="replace")):
            offenders.append(f"{stylesheet.relative_to(site)}: url({url})")
    assert not offenders, "resources from other hosts:\n" + "\n".join(offenders[:20])


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("source", PAGES)
def test_language_links_point_to_the_counterpart(site: Path, source: str, lang: str) -> None:
    page = built_path(site, source, lang)
    soup = parsed_page(page)
    own_url = page_url(source, lang)
    links = {a["hreflang"]: a["href"] for a in soup.select("a.md-select__link[hreflang]")}
    assert set(links) == set(LANGUAGES), f"language switcher on {own_url} lists {sorted(links)}"
    for other, href in links.items():
        prefix = urlparse(SITE_URL).path.rstrip("/")
        resolved = urlparse(urljoin(f"http://site{prefix}{own_url}", href)).path
        assert resolved == prefix + page_url(source, other), f"on {own_url}, the {other} link goes to {resolved}"


@pytest.mark.parametrize("source", PAGES)
def test_headings_have_the_same_meaningful_anchors_in_both_languages(site: Path, source: str) -> None:
    anchors = {}
    for lang in LANGUAGES:
        content = article(parsed_page(built_path(site, source, lang)))
        ids = [h["id"] for h in content.find_all(re.compile("^h[1-6]$")) if h.get("id")]
        meaningless = [i for i in ids if re.fullmatch(r"_?\d*", i)]
        assert not meaningless, f"{source} ({lang}) has meaningless heading anchors {meaningless}"
        anchors[lang] = ids
    assert anchors["zh"] == anchors["en"], f"{source}: heading anchors differ between zh and en"


def test_internal_links_and_anchors_resolve(site: Path) -> None:
    broken: list[str] = []
    ids_cache: dict[Path, set[str]] = {}

    def ids_of(path: Path) -> set[str]:
        if path not in ids_cache:
            ids_cache[path] = {node["id"] for node in parsed_page(path).find_all(id=True)}
        return ids_cache[path]

    for page in site.rglob("*.html"):
        if page.name == "404.html":
            continue
        for a in parsed_page(page).select("article a[href]"):
            href = a["href"]
            if EXTERNAL.match(href) or href.startswith(("mailto:", "data:")):
                continue
            target_url = urlparse(urljoin(page.as_uri(), href))
            target = Path(target_url.path)
            if target.is_dir():
                target = target / "index.html"
            if not target.exists() and not is_pdf_edition(site, target):  # made after the build: tests/browser/test_pdf.py
                broken.append(f"{page.relative_to(site)} → {href}")
            elif target_url.fragment and target.suffix == ".html" and target_url.fragment not in ids_of(target):
                broken.append(f"{page.relative_to(site)} → {href} (no such anchor)")
    assert not broken, "broken internal links:\n" + "\n".join(broken)


def test_the_search_index_has_formulas_as_plain_text(site: Path) -> None:
    documents = [document for folder in (SITE_MAP.page("index.md", lang).url + "search" for lang in LANGUAGES)  # one index per language
                 for document in json.loads((site / folder / "search_index.json").read_text(encoding="utf-8"))["docs"]]
    index = {"docs": documents}
    texts = [document["title"] + " " + document["text"] for document in index["docs"]]
    raw = [text[:120] for text in texts if re.search(r"\\[(\[]|\$\$|\\frac|\\sqrt|<svg|mjx-", text)]
    assert not raw, f"TeX or SVG in the search index: {raw[:3]}"
    titles = {document["title"] for document in index["docs"]}
    assert {"第三步：缩放（除以 √dₖ）", "Step 3: scale (divide by √dₖ)"} <= {title.replace("<wbr/>", "") for title in titles}, sorted(titles)[:40]


@pytest.mark.parametrize("source", [page for page in PAGES if page.endswith(".md")])
def test_a_chinese_caption_has_no_space_before_its_code_link(site: Path, source: str) -> None:
    # “……。绘图代码”, not “……。 绘图代码”: Chinese puts no space after full-width punctuation.
    soup = parsed_page(built_path(site, source, "zh"))
    for link in soup.select("figcaption a.figure-source"):
        before = link.previous_sibling
        text = before if isinstance(before, str) else (before.get_text() if before is not None else "")
        assert not re.search(r"[。！？）」；：]\s+$", text), f"{source}: a space after the caption's last “{text.strip()[-1:]}”"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("source", [page for page in PAGES if page.endswith(".md")])
def test_every_figure_image_is_lazy_and_sized_as_its_file(site: Path, source: str, lang: str) -> None:
    # The page keeps a figure's place before its file arrives (no text jumps when it does), and
    # fetches only the scheme's figure it shows.
    page = built_path(site, source, lang)
    for image in parsed_page(page).select("article figure img"):
        src = str(image.get("src", ""))
        assert image.get("loading") == "lazy", f"{source} ({lang}): {src} is not lazy"
        svg = ET.parse(Path(urljoin(page.as_uri(), src.split("#")[0]).removeprefix("file://"))).getroot()
        drawn = [round(float(svg.get(side, "").removesuffix("pt")) * 4 / 3) for side in ("width", "height")]  # 1 pt = 4/3 px
        shown = [int(str(image.get(side, "0"))) for side in ("width", "height")]
        assert shown == drawn, f"{source} ({lang}): {src} has width × height {shown}, its file {drawn}"


# Step names are words, not code identifiers -------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("page", ["complexity.md", "summary-flow.md"])
def test_no_code_identifier_is_printed_as_a_name(site: Path, page: str, lang: str) -> None:
    items = [li for li in built_article(site, page, lang).select("li") if li.contents and getattr(li.contents[0], "name", None) == "code"]
    assert not items, f"{lang}/{page}: list items named by code identifiers: {[li.get_text()[:40] for li in items]}"
