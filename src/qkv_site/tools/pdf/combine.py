"""One print page per language, assembled from the ``<article>`` of every built page of the nav.

Every page becomes a ``<section>``; its ids get the page's name as a prefix (``worked-example--step-1``)
so that the sections cannot collide, and every link between pages of the nav becomes a link inside the
print page (Chromium turns those into links inside the PDF). What only makes sense on screen goes: the
"Code" tab of every computed result (the result stays), the dark variant of every figure, the folded
code that drew each figure and the code of “how this section is computed”, permalinks, scripts, copy
buttons, and the controls of the interactive pages (a short note says so, and links to them). An
exercise's solution, folded on the web page, is printed open under its exercise (the cover says so);
the learned-attention widget becomes its print figure (`qkv_site.builder.learned_print`), which links
to the page.

Links to the site itself, not to a page of the PDF (an interactive page, the notebook's download, a
figure's code), are absolute and go to the published site: its address is the canonical link of the
built home page. A site built without ``site_url`` has none, and then those links are left out (their
words stay) rather than pointing anywhere invented.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from bs4 import BeautifulSoup, Tag

from qkv_site.site_map import SitePage


def attribute(tag: Tag, name: str) -> str:
    """An attribute of ``tag`` as one string (BeautifulSoup gives multi-valued ones as lists)."""
    value = tag.get(name)
    return value if isinstance(value, str) else " ".join(value or [])


def one(found: Tag | None, what: str, page: SitePage) -> Tag:
    if found is None:
        raise ValueError(f"{page.path_in_site}: no {what}")
    return found

# What the print page says in its own words, per language.
LABELS = {
    "zh": {
        "online": "网页版：",
        "solutions": "每道练习的解答印在题目后面（网页上是折叠起来的）。",
        "interactive": "这一页是交互式的，只能在浏览器里使用：",
        "embedded": "网页上这里是一个交互式的小实验台：",
        # The same, when the site was built without its published address (nothing to link to).
        "interactive-unlinked": "这一页是交互式的，只能在浏览器里使用。",
        "embedded-unlinked": "网页上这里是一个交互式的小实验台。",
    },
    "en": {
        "online": "Online edition: ",
        "solutions": "Each exercise's solution is printed right after it (on the web pages it is folded).",
        "interactive": "This page is interactive and works only in a browser: ",
        "embedded": "On the web page, a small interactive playground sits here: ",
        "interactive-unlinked": "This page is interactive and works only in a browser.",
        "embedded-unlinked": "On the web page, a small interactive playground sits here.",
    },
}
STYLESHEET = Path(__file__).with_name("edition.css")
# Elements a printed page has no use for.
SCREEN_ONLY = ", ".join([
    "a.headerlink",  # the ¶ permalinks
    "script",
    ".md-content__button",  # edit / view source
    ".md-source-file",
    ".clipboard-copy-txt",  # the notebook's copy buttons
    ".zeroclipboard-container",
    'img[src*="#only-dark"]',  # figures come in a light and a dark variant: print the light one
    # folded blocks, once the solutions are opened (`open_solutions`): the code that drew a figure
    # (qkv_site/builder/figure_markup.py; the caption links to it online) and how a section is computed
    "details",
    ".qkv-learned-widget",  # empty until its script runs; its print figure follows it
    "noscript",
])
# Attributes that would keep an image from loading or a figure from printing.
SCREEN_ATTRIBUTES = ("loading", "decoding")
# The controls of the interactive pages (they need a browser) are replaced by a link to them.
INTERACTIVE = ".qkv-playground"


def page_anchor(page: SitePage) -> str:
    """The id of a page's section in the print page."""
    return f"page-{page.stem}"


def local_id(page: SitePage, element_id: str) -> str:
    """The id an element of ``page`` gets in the print page."""
    return f"{page.stem}--{element_id}"


def read_built_page(site: Path, page: SitePage) -> BeautifulSoup:
    path = page.built(site)
    if not path.is_file():
        raise FileNotFoundError(f"{page.source} ({page.lang}) was not built: no {path}; build the site first (mkdocs build)")
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def article_of(soup: BeautifulSoup, page: SitePage) -> Tag:
    article = soup.select_one("article.md-content__inner")
    if article is None:
        raise ValueError(f"{page.path_in_site} has no <article class=md-content__inner>: not a page of the Material theme")
    return article


def published_root(home: BeautifulSoup, home_page: SitePage) -> str | None:
    """The site's public address, from the canonical link of the default language's home page;
    ``None`` for a site built without ``site_url`` (no SITE_URL), which has no canonical links."""
    canonical = home.select_one('link[rel="canonical"]')
    if canonical is None:
        return None
    href = attribute(canonical, "href")
    if not href.startswith(("https://", "http://")):
        raise ValueError(f"{home_page.path_in_site}: <link rel=canonical> is not an absolute address: {href!r}")
    return href


def drop_code_tabs(article: Tag, page: SitePage) -> None:
    """Keep the result of every computed block and drop the tab with the code that produced it.

    markdown-exec's ``source="tabbed-right"`` puts the result in the first tab and the source in the
    second; a second tab that is anything but a code listing means the layout changed, and that is an error.
    """
    for tabs in article.select(".tabbed-set"):
        if not tabs.select_one('input[id^="exec-"]'):
            continue  # tabs the author wrote: the reader chooses, print them all
        blocks = tabs.select(":scope > .tabbed-content > .tabbed-block")
        if len(blocks) != 2:
            raise ValueError(f"{page.path_in_site}: a computed block has {len(blocks)} tabs, expected result and code")
        result, code = blocks
        if not (code.select_one("pre > code") and len(code.find_all(recursive=False)) == 1):
            listing = code.get_text()[:80]
            raise ValueError(f"{page.path_in_site}: the second tab of a computed block is not the code listing: {listing!r}")
        result.name = "div"
        result["class"] = "exec-result"
        tabs.replace_with(result)


def open_solutions(article: Tag, page: SitePage) -> None:
    """Print every exercise's solution (``??? success``, folded on the page) open where it is: as the
    admonition ``!!! success`` would be, its summary as the title."""
    for solution in article.select("details.success"):
        summary = one(solution.find("summary", recursive=False), "<summary> in a solution", page)
        summary.name = "p"
        summary["class"] = "admonition-title"
        solution.name = "div"
        solution["class"] = "admonition success"
        solution.attrs.pop("open", None)


def learned_figures(article: Tag, site: Path, page: SitePage, root: str | None) -> None:
    """Print the figure of each learned-attention widget (hidden on screen, an image there) as SVG in the
    page, linked to the page when the build knows the published address.

    In the page, not as an image: Chromium writes the text of an SVG image into a PDF by the font's
    glyphs alone, and a glyph that two characters share comes back out as the other one (网 as the
    radical ⽹); the text of an SVG in the page keeps its characters."""
    for block in article.select(".qkv-learned-print"):
        block.attrs.pop("hidden", None)
        image = one(block.find("img"), "<img> in a learned widget's print figure", page)
        drawn = page.built(site).parent / attribute(image, "src")
        if not drawn.is_file():
            raise FileNotFoundError(f"{page.path_in_site}: no {drawn.name} beside the page: build the site again")
        figure = one(BeautifulSoup(drawn.read_text(encoding="utf-8"), "html.parser").find("svg"), f"<svg> in {drawn.name}", page)
        figure["role"] = "img"
        figure["aria-label"] = attribute(image, "alt")
        image.replace_with(figure)
        if root is not None:
            figure.wrap(BeautifulSoup("", "html.parser").new_tag("a", href=urljoin(root, page.url)))


def replace_interactive(article: Tag, page: SitePage, root: str | None, lang: str) -> bool:
    """Replace the controls of an interactive page by a link to it; say whether the page is nothing else.

    A full playground (the page's own subject) leaves only the page's title and the note; a compact one
    embedded in a page (``data-compact``) leaves the note in its place and the rest of the page as it is.
    """
    widgets = article.select(INTERACTIVE)
    whole_page = any(not widget.has_attr("data-compact") for widget in widgets)

    def note(label: str) -> Tag:
        if root is None:
            markup = f'<p class="edition-note">{html.escape(LABELS[lang][label + "-unlinked"])}</p>'
        else:
            address = html.escape(urljoin(root, page.url))
            markup = f'<p class="edition-note">{html.escape(LABELS[lang][label])}<a href="{address}">{address}</a></p>'
        return one(BeautifulSoup(markup, "html.parser").p, "note", page)

    if whole_page:
        title = article.find("h1")
        for child in list(article.children):
            if child is not title:
                child.extract()
        article.append(note("interactive"))
    else:
        for widget in widgets:
            widget.replace_with(note("embedded"))
    return whole_page


REFERENCES = ("for", "aria-labelledby", "aria-describedby", "aria-controls")  # attributes that name ids


def prefix_ids(article: Tag, page: SitePage) -> None:
    """Give every id of the page, and every reference to one, the page's prefix (links: ``rewrite_links``).

    One pass over the article's elements (a page's inline SVG formulas make tens of thousands)."""
    for element in article.find_all(True):
        for name, value in list(element.attrs.items()):
            if name == "id":
                element["id"] = local_id(page, attribute(element, "id"))
            elif name in REFERENCES:
                element[name] = " ".join(local_id(page, one_id) for one_id in attribute(element, name).split())
            elif not isinstance(value, str) or element.name == "a":
                continue
            # Inline SVG (formulas typeset at build time): <use href="#glyph"> and url(#…) in attributes.
            elif name in ("href", "xlink:href") and value.startswith("#"):
                element[name] = "#" + local_id(page, value[1:])
            elif "url(#" in value:
                element[name] = re.sub(r"url\(#([^)]+)\)", lambda match: f"url(#{local_id(page, match.group(1))})", value)


def absolute_resources(article: Tag, page: SitePage) -> None:
    """Make every image (and the like) root-relative, so the print page finds it wherever it is served."""
    for element in article.find_all(True):
        for name in ("src", "data"):
            value = element.get(name)
            if isinstance(value, str) and not value.startswith(("data:", "http:", "https:", "//")):
                element[name] = urljoin("/" + page.url, value)
        if element.name == "img":
            for name in SCREEN_ATTRIBUTES:
                element.attrs.pop(name, None)


def figure_code_links(article: Tag, page: SitePage, root: str | None) -> None:
    """A caption's link to the code that drew its figure (folded under the figure, not printed) goes to
    that code on the published page, or, without a published address, goes."""
    for link in article.select("a.figure-source"):
        fragment = urlsplit(attribute(link, "href")).fragment
        if root is None or not fragment:
            link.decompose()
        else:
            link["href"] = f"{urljoin(root, page.url)}#{fragment}"


def rewrite_links(article: Tag, page: SitePage, by_url: dict[str, SitePage], ids: set[str], interactive: set[str],
                  root: str | None) -> None:
    """Links between pages of the nav jump inside the print page; every other link goes to the published
    site, or, when the site was built without its address, is left out (its text stays)."""
    for link in article.find_all("a", href=True):
        href = attribute(link, "href")
        parts = urlsplit(href)
        if parts.scheme or href.startswith("//"):
            continue  # another site
        target_url = urljoin("/" + page.url, href)
        target = urlsplit(target_url)
        path = target.path.lstrip("/")
        if path.endswith("index.html"):
            path = path[: -len("index.html")]
        fragment = unquote(target.fragment)
        target_page = by_url.get(path)
        if target_page is not None and not (fragment and target_page.stem in interactive):
            anchor = local_id(target_page, fragment) if fragment else page_anchor(target_page)
            if anchor not in ids:
                missing = f"{page.path_in_site}: link {href!r} goes to #{fragment}"
                raise ValueError(f"{missing}, which {target_page.path_in_site} does not have")
            link["href"] = f"#{anchor}"
        elif root is None:
            link.unwrap()
        else:
            link["href"] = urljoin(root, target_url.lstrip("/"))


def cover(home: Tag, home_page: SitePage, root: str | None, title: str) -> str:
    """The first page: the title, the attribution line of the home page, where the site lives and where
    the exercises' solutions are."""
    series = home.find(id=lambda value: value is not None and value.endswith("--series"))
    attribution = series.find_next("p") if series is not None else None
    if attribution is None:
        raise ValueError("the home page has no paragraph after its #series heading: the cover needs the attribution line")
    lang = home_page.lang
    online = ""
    if root is not None:
        address = html.escape(urljoin(root, home_page.url))
        online = f'<p class="edition-online">{html.escape(LABELS[lang]["online"])}<a href="{address}">{address}</a></p>'
    solutions = f'<p class="edition-solutions">{html.escape(LABELS[lang]["solutions"])}</p>'
    return (
        '<section class="edition-cover">'
        f'<p class="edition-title">{html.escape(title)}</p>'
        f'<div class="edition-attribution">{attribution.decode_contents()}</div>'
        f"{online}{solutions}</section>"
    )


def combined_html(site: Path, pages: list[SitePage], root_home: SitePage) -> str:
    """The print page of one language: a cover, then every page of ``pages`` (nav order) as a section."""
    if not pages or pages[0].stem != "index":
        raise ValueError(f"the nav must start with the home page, got {[page.source for page in pages[:1]]}")
    lang = pages[0].lang
    if lang not in LABELS:
        raise ValueError(f"no print labels for language {lang!r}; known: {sorted(LABELS)}")
    root = published_root(read_built_page(site, root_home), root_home)
    soups = [read_built_page(site, page) for page in pages]
    articles = [article_of(soup, page) for soup, page in zip(soups, pages, strict=True)]
    interactive: set[str] = set()
    for article, page in zip(articles, pages, strict=True):
        if article.find("h1") is None:
            raise ValueError(f"{page.path_in_site} has no <h1>: every page of the PDF starts with its title")
        if replace_interactive(article, page, root, lang):
            interactive.add(page.stem)
        drop_code_tabs(article, page)
        figure_code_links(article, page, root)
        open_solutions(article, page)
        learned_figures(article, site, page, root)
        for element in article.select(SCREEN_ONLY):
            element.decompose()
        prefix_ids(article, page)
        absolute_resources(article, page)
    ids = {page_anchor(page) for page in pages}
    ids |= {attribute(element, "id") for article in articles for element in article.find_all(id=True)}
    by_url = {page.url: page for page in pages}
    for article, page in zip(articles, pages, strict=True):
        rewrite_links(article, page, by_url, ids, interactive, root)

    first = soups[0]
    stylesheets = [urljoin("/" + pages[0].url, attribute(link, "href")) for link in first.select('link[rel="stylesheet"]')]
    # MathJax, when the pages typeset their formulas in the browser: its configuration and its bundle.
    sources = [attribute(script, "src") for script in first.select("script[src]")]
    scripts = [urljoin("/" + pages[0].url, src) for src in sources if "mathjax" in src.lower()]
    home_title = " ".join(one(articles[0].find("h1"), "<h1>", pages[0]).get_text().split())
    head = "\n".join(
        [f'<meta charset="utf-8"><title>{html.escape(home_title)}</title>']
        + [f'<link rel="stylesheet" href="{html.escape(href)}">' for href in stylesheets]
        + [f"<style>{STYLESHEET.read_text(encoding='utf-8')}</style>"]
    )
    sections = "\n".join(
        f'<section class="edition-page md-typeset" id="{page_anchor(page)}">{article.decode_contents()}</section>'
        for article, page in zip(articles, pages, strict=True)
    )
    body_scripts = "\n".join(f'<script src="{html.escape(src)}"></script>' for src in scripts)
    return (
        f'<!doctype html>\n<html lang="{lang}">\n<head>\n{head}\n</head>\n'
        '<body dir="ltr" data-md-color-scheme="default" data-md-color-primary="indigo" data-md-color-accent="indigo">\n'
        f"{cover(articles[0], pages[0], root, home_title)}\n{sections}\n{body_scripts}\n</body>\n</html>\n"
    )

