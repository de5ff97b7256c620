"""Links out of the page and out of the PDF: no page names a local address, absolute addresses come only
from the published site (SITE_URL) and the repository only from the deploy environment (REPO_URL), the
sitemap lists every page, and the emoji of the pages come with the site's own font."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from build_support import build_site
from fontTools.ttLib import TTFont
from learned_print_support import LEARNED, TASKS, figure_path, figure_texts
from repository import DOCS, LANGUAGES, ROOT, SITE_URL
from site_pages import built_page, nav_sources, page_url, parsed_page, parsed_print_page

from qkv_site.builder.emoji_font import SITE_PATH, emoji_in
from qkv_site.builder.learned_print import LABELS
from qkv_site.project import Project

LOCAL = re.compile(r"(?:https?:)?//(?:127\.0\.0\.1|localhost|0\.0\.0\.0)\b")
# What a reader's browser, a crawler or the PDF reads: the pages, the sitemap, the search indexes.
TEXT_FILES = ("*.html", "*.xml", "*.json")


def local_addresses(site: Path) -> dict[str, list[str]]:
    found = {}
    for pattern in TEXT_FILES:
        for path in site.rglob(pattern):
            hits = LOCAL.findall(path.read_text(encoding="utf-8", errors="replace"))
            if hits:
                found[path.relative_to(site).as_posix()] = hits[:3]
    return found


@pytest.fixture(scope="module")
def plain_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as a plain ``mkdocs build`` makes it: no SITE_URL, REPO_URL or REPO_NAME."""
    site_dir = tmp_path_factory.mktemp("plain-site")
    result = build_site(site_dir, deploy_env=False)
    if result.returncode != 0:
        pytest.fail(f"mkdocs build --strict without the deploy environment failed:\n{result.stderr[-6000:]}", pytrace=False)
    return site_dir


def test_no_page_of_the_published_site_names_a_local_address(site: Path) -> None:
    assert not local_addresses(site)


def test_no_page_of_a_plain_build_names_a_local_address(plain_site: Path) -> None:
    assert not local_addresses(plain_site)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_plain_build_leaves_out_what_needs_an_absolute_address(plain_site: Path, lang: str) -> None:
    for source in nav_sources():
        soup = built_page(plain_site, source, lang)
        where = f"{lang}/{source}"
        assert not soup.select('link[rel="canonical"]'), where
        for key in ("og:url", "og:image", "twitter:image"):
            assert not soup.find("meta", attrs={"property": key}) and not soup.find("meta", attrs={"name": key}), (where, key)
        assert soup.find("meta", attrs={"property": "og:title"}), where  # what needs no address stays
        assert not soup.select("a.md-source"), f"{where}: a repository link without a repository"
        chrome_and_captions = soup.select("header a[href], nav a[href], figure a[href], details.figure-code a[href]")
        assert not [link["href"] for link in chrome_and_captions if "github.com" in link["href"]], f"{where}: a repository link without a repository"
        for caption in soup.select("figure figcaption"):
            [link] = caption.select("a.figure-source")
            assert soup.find(id=link["href"].removeprefix("#")), f"{where}: {link['href']} is not on the page"
    assert "<url>" not in (plain_site / "sitemap.xml").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_print_page_of_a_plain_build_links_nowhere_invented(plain_site: Path, lang: str) -> None:
    page = parsed_print_page(plain_site, lang)  # shared: read it, never change it
    external = [link["href"] for link in page.select("a[href]") if not link["href"].startswith("#")]
    assert not [href for href in external if not href.startswith(("https://", "http://"))], "a link into a site that is not there"
    assert not [href for href in external if LOCAL.search(href) or "example.org" in href], external
    assert not page.select(".edition-online"), "the cover names an address the build did not have"
    notes = page.select(".edition-note")
    assert notes and all(not note.select("a") for note in notes), "the playground notice links somewhere"
    assert not page.select("a.figure-source"), "a figure's code link with no page to go to"
    assert len(page.select(".qkv-learned-print svg")) == len(TASKS), "the learned widgets' figures"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_learned_widgets_print_figures_of_a_plain_build_name_no_address(plain_site: Path, lang: str) -> None:
    for task in TASKS:
        texts = figure_texts(figure_path(plain_site, lang, task).read_text(encoding="utf-8"))
        assert LABELS[lang]["online-unlinked"] in texts and not [text for text in texts if "http" in text or "/" in text], texts


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_print_page_links_the_published_site(site: Path, lang: str) -> None:
    page = parsed_print_page(site, lang)  # shared: read it, never change it
    [online] = page.select(".edition-online a")
    assert online["href"].startswith(SITE_URL)
    assert all(link["href"].startswith(SITE_URL) for link in page.select(".edition-note a")) and page.select(".edition-note a")
    learned = [link["href"] for link in page.select(".qkv-learned-print a[href]")]
    assert learned == [SITE_URL + page_url(LEARNED, lang).lstrip("/")] * len(TASKS), f"the learned widgets' figures link {learned}"
    figure_code = page.select("a.figure-source")
    assert figure_code and all(link["href"].startswith(SITE_URL) and "#figure-code-" in link["href"] for link in figure_code)
    external = [link["href"] for link in page.select("a[href]") if not link["href"].startswith("#")]
    assert not [href for href in external if LOCAL.search(href)], external


def test_the_sitemap_lists_every_page_of_the_nav_in_both_languages(site: Path) -> None:
    listed = set(re.findall(r"<loc>([^<]+)</loc>", (site / "sitemap.xml").read_text(encoding="utf-8")))
    for source in nav_sources():
        for lang in LANGUAGES:
            url = SITE_URL + page_url(source, lang).lstrip("/")
            assert url in listed, f"{url} is not in sitemap.xml"


def test_the_sites_emoji_font_holds_exactly_the_emoji_of_the_pages(site: Path) -> None:
    font = site / SITE_PATH
    covered = {chr(code) for code in TTFont(font).getBestCmap()}
    texts = [parsed_page(path).get_text() for path in site.rglob("*.html")]
    used = emoji_in(texts)
    assert {"📌", "✅"} <= set(used), used
    assert set(used) <= covered, f"emoji the font cannot draw: {sorted(set(used) - covered)}"
    assert covered <= set(used), f"glyphs of emoji no page shows: {sorted(covered - set(used))}"
    stylesheet = (site / "assets" / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    assert f'url("../fonts/{font.name}")' in stylesheet


def test_the_home_page_names_the_repository_only_when_the_build_knows_it(project: Project) -> None:
    from qkv_site.builder.page_values import render
    from qkv_site.site_nav import read_nav

    for lang in LANGUAGES:
        page = (DOCS / lang / "index.md").read_text(encoding="utf-8").split("---\n", 2)[2]
        nav = read_nav(project.config_file, project.docs_dir, lang)
        known = render(page, {"values": "index"}, f"{lang}/index.md", project,
                       site={"repo_url": "https://github.com/o/r", "repo_name": "o/r"}, nav=nav)
        unknown = render(page, {"values": "index"}, f"{lang}/index.md", project, site={"repo_url": None, "repo_name": None},
                         nav=nav)
        assert "git clone https://github.com/o/r.git && cd r" in known and "(https://github.com/o/r)" in known
        assert "github.com" not in unknown and "git clone" not in unknown, lang


def test_no_page_source_names_a_repository_of_its_own() -> None:
    # The repository comes from the deploy environment ({{ repo_url }}), never typed into a page.
    typed = [str(page.relative_to(ROOT)) for page in sorted(DOCS.rglob("*.md")) if "github.com/" in page.read_text(encoding="utf-8")]
    assert not typed, f"pages that type a repository address: {typed}"
