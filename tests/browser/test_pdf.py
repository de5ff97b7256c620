"""The PDF edition: ``python -m qkv_site.tools.pdf`` on a copy of the test session's site, read back with poppler.

Every heading of a language's pages is in its PDF's outline, in nav order, and on the page the outline
points to; the worked example's matrices are text; no raw TeX, no build code; fonts embedded; links
inside the PDF land on the right page; each PDF is where its home page links it, and under 10 MB. The
cover gives the site's address and says where the solutions are, the playground's page links it, every
exercise is followed by its solution, and the learned widgets are printed as their figures.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import numpy as np
import pytest
from bs4 import BeautifulSoup, Tag
from learned_print_support import LEARNED, TASKS, figure_path, printed_panels
from PIL import Image
from repository import DOCS, LANGUAGES, ROOT, SITE_URL
from site_pages import built_page, built_path, nav_sources, page_url, parsed_print_page

from qkv.examples import worked_example
from qkv_site.builder.learned_print import HEAT
from qkv_site.builder.learned_print import LABELS as FIGURE_LABELS
from qkv_site.markdown_source import read
from qkv_site.tools.pdf import pdf_path
from qkv_site.tools.pdf.combine import LABELS
from qkv_site.values.formatting import number

PAGES = nav_sources()
MAX_BYTES = 10 * 1024 * 1024
POPPLER = ("pdftotext", "pdffonts", "pdftohtml")
MATH = "\x00"  # where a formula was in a heading: the outline has no text for it


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="session")
def pdf_site(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the session's site with both PDFs made in it (the session's own site stays as mkdocs wrote it)."""
    from browser_support import browser_unavailable

    missing = browser_unavailable() or next((f"no {tool} (sudo apt-get install poppler-utils)" for tool in POPPLER if not shutil.which(tool)), None)
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the PDF tests cannot run in CI (CI=true): {missing}", pytrace=False)
        pytest.skip(f"PDF tests skipped: {missing}")
    copy = tmp_path_factory.mktemp("pdf") / "site"
    shutil.copytree(site, copy)
    command = [sys.executable, "-m", "qkv_site.tools.pdf", "--site-dir", str(copy), "--config-file", str(ROOT / "mkdocs.yml")]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        pytest.fail(f"python -m qkv_site.tools.pdf failed:\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}", pytrace=False)
    return copy


@cache
def pages_text(pdf: Path, *options: str) -> list[str]:
    """The text of every page of ``pdf`` (pdftotext separates pages with a form feed)."""
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", *options, str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return text.split("\f")[:-1]


@cache
def pdf_xml(pdf: Path) -> str:
    """poppler's XML view of ``pdf``: every piece of text with its links, and the outline."""
    return subprocess.run(["pdftohtml", "-xml", "-i", "-stdout", "-q", str(pdf)], capture_output=True, text=True, check=True).stdout


def outline(pdf: Path) -> list[tuple[str, int]]:
    """The PDF's bookmarks, in order, as (title, page number)."""
    return [(html.unescape(re.sub(r"<[^>]+>", "", title)), int(page)) for page, title in re.findall(r'<item page="(\d+)">(.*?)</item>', pdf_xml(pdf))]


def headings(site: Path, lang: str, *sources: str) -> list[str]:
    """Every heading of the language's pages (of ``sources``, default all) in nav order (an interactive
    page keeps only its title), with MATH where a formula was."""
    found: list[str] = []
    for source in sources or PAGES:
        article = built_page(site, source, lang).select_one("article")  # shared: each heading is copied before it is changed
        interactive = article.select_one(".qkv-playground:not([data-compact])") is not None
        for shared in article.find_all(re.compile("^h[1-6]$"), limit=1 if interactive else None):
            heading = BeautifulSoup(str(shared), "html.parser")
            for node in heading.select("a.headerlink, a.anchor-link"):
                node.decompose()
            for formula in heading.select(".arithmatex"):
                formula.replace_with(MATH)
            found.append(re.sub(r"\$[^$]+\$|\\\(.+?\\\)", MATH, heading.get_text()))
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_pdf_is_where_the_home_page_links_it(pdf_site: Path, lang: str) -> None:
    home = built_path(pdf_site, "index.md", lang)
    links = BeautifulSoup(home.read_text(encoding="utf-8"), "html.parser").select("article a.pdf-edition[href]")
    assert len(links) == 1, f"the {lang} home page should link its PDF once, found {len(links)} links"
    target = Path(unquote(urlsplit(urljoin(home.as_uri(), links[0]["href"])).path))
    assert target == pdf_path(pdf_site, lang), f"the {lang} home page links {target}, the PDF is at {pdf_path(pdf_site, lang)}"
    size = target.stat().st_size
    assert 100_000 < size <= MAX_BYTES, f"{target.name}: {size / 1e6:.1f} MB (at most {MAX_BYTES / 1e6:.1f} MB)"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_heading_is_in_the_outline_in_nav_order_and_on_its_page(pdf_site: Path, lang: str) -> None:
    pdf = pdf_path(pdf_site, lang)
    expected = headings(pdf_site, lang)
    bookmarks = outline(pdf)
    # A formula in a heading is in the outline as whatever text it was drawn with (or none): the text
    # around it must match exactly.
    patterns = [".*?".join(re.escape(squeeze(part)) for part in heading.split(MATH)) for heading in expected]
    titles = [squeeze(title) for title, _ in bookmarks]
    assert len(titles) == len(patterns), f"{len(titles)} bookmarks for {len(patterns)} headings: {titles}"
    differ = [(title, heading) for title, pattern, heading in zip(titles, patterns, expected) if not re.fullmatch(pattern, title)]
    assert not differ, f"outline ≠ the pages' headings (bookmark, heading): {differ[:5]}"
    numbers = [page for _, page in bookmarks]
    assert numbers == sorted(numbers), f"the outline's pages go backwards: {numbers}"
    text = pages_text(pdf)
    assert numbers[0] >= 2, "the first page is the cover"
    for heading, page in zip(expected, numbers):
        on_page = squeeze(text[page - 1])
        for piece in filter(None, (squeeze(part) for part in heading.split(MATH))):
            assert piece in on_page, f"heading {heading!r}: {piece!r} is not on page {page}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_worked_example_matrices_are_text(pdf_site: Path, lang: str) -> None:
    pdf = pdf_path(pdf_site, lang)
    # The worked example's pages: from its title's page to the page before the next page's title.
    following = PAGES[PAGES.index("worked-example.md") + 1]
    titles = [squeeze(headings(pdf_site, lang, source)[0]) for source in ("worked-example.md", following)]
    page_of = {squeeze(title): page for title, page in outline(pdf)}
    first, after = (page_of[title] for title in titles)
    # In content order (-raw) every matrix reads row by row: look for each one's numbers in a row.
    text = "".join(pages_text(pdf, "-raw")[first - 1:after - 1]).replace("\u2212", "-")  # MathJax writes U+2212 for minus
    numbers = " " + " ".join(re.findall(r"-?\d+(?:\.\d+)?", text)) + " "
    example = worked_example()
    matrices = {name: getattr(example, name) for name in ("x", "w_q", "w_k", "w_v", "q", "k", "v", "scores", "scaled_scores", "weights", "output")}
    missing = [name for name, matrix in matrices.items() if " " + " ".join(number(value) for value in matrix.ravel()) + " " not in numbers]
    assert not missing, f"matrices of the worked example not found as text in the {lang} PDF: {missing}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_raw_tex(pdf_site: Path, lang: str) -> None:
    for number_, page in enumerate(pages_text(pdf_path(pdf_site, lang)), start=1):
        for marker in ("\\frac", "\\begin", "$$", "\\(", "\\["):
            assert marker not in page, f"raw TeX {marker!r} on page {number_}: …{page[max(0, page.find(marker) - 60):page.find(marker) + 60]}…"


def exec_and_reader_code(lang: str) -> tuple[list[str], str]:
    """The lines of the build-time (``exec="on"``) blocks of the language's pages, and all the code a
    reader is shown (plain code blocks, the notebook's cells), squeezed."""
    build, reader = [], []
    for source in PAGES:
        path = DOCS / lang / source
        if source.endswith(".ipynb"):
            reader += ["".join(cell["source"]) for cell in json.loads(path.read_text(encoding="utf-8"))["cells"] if cell["cell_type"] == "code"]
            continue
        for fence in read(path).fences:
            if not fence.language:
                continue
            # A build-time block runs a program of docs_src/. Its code is the reader's when the page shows it
            # in the open (source="above", not indented into a folded block); in a folded block or a code
            # tab it is not printed.
            body = re.sub(r'^\s*--8<--\s+"([^"]+)"\s*$', lambda m: (ROOT / "docs_src" / m[1]).read_text(encoding="utf-8"), fence.body,
                          flags=re.MULTILINE)
            shown_in_the_open = 'exec="on"' not in fence.info or ('source="above"' in fence.info and not fence.indent)
            (reader if shown_in_the_open else build).append(body)
    return [line.strip() for block in build for line in block.splitlines()], squeeze("\n".join(reader))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_none_of_the_build_code(pdf_site: Path, lang: str) -> None:
    build_lines, reader_code = exec_and_reader_code(lang)
    # Code, not the prose its strings print (a call, an import, an assignment); and a line the reader is
    # shown elsewhere (the same import in a plain code block) proves nothing.
    code = re.compile(r"^(from|import)\s|^[\w.\[\], ]+\s*=[^=]|^[\w.]+\(")
    telling = [line for line in build_lines if len(squeeze(line)) >= 12 and code.match(line) and squeeze(line) not in reader_code]
    assert len(telling) >= 20, f"only {len(telling)} lines of build code to look for: the check would prove little"
    text = squeeze("".join(pages_text(pdf_path(pdf_site, lang))))
    shown = [line for line in telling if squeeze(line) in text]
    assert not shown, f"build code in the {lang} PDF: {shown[:5]}"


def font_rows(pdf: Path) -> list[dict[str, str]]:
    lines = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout.splitlines()
    header, rule = lines[0], lines[1]
    spans = [match.span() for match in re.finditer(r"-+", rule)]
    names = [header[start:end + 1].strip() for start, end in spans]
    return [{name: row[start:end + 1].strip() for name, (start, end) in zip(names, spans)} for row in lines[2:]]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_font_is_embedded_and_maps_to_unicode(pdf_site: Path, lang: str) -> None:
    rows = font_rows(pdf_path(pdf_site, lang))
    assert rows, "pdffonts lists no font"
    not_embedded = [row for row in rows if row["emb"] != "yes" or row["uni"] != "yes"]
    assert not not_embedded, f"fonts not embedded or without a Unicode map: {not_embedded[:5]}"
    if lang == "zh":
        cjk = sum(1 for char in "".join(pages_text(pdf_path(pdf_site, lang))) if "\u4e00" <= char <= "\u9fff")
        assert cjk > 5_000, f"only {cjk} Chinese characters came back out of the Chinese PDF"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_links_between_pages_land_on_their_page(pdf_site: Path, lang: str) -> None:
    pdf = pdf_path(pdf_site, lang)
    page_of = {squeeze(title): page for title, page in outline(pdf)}
    pages = len(pages_text(pdf))
    internal: list[tuple[int, str]] = []
    for target, text in re.findall(r'<a href="[^"#]*\.html#(\d+)">(.*?)</a>', pdf_xml(pdf)):
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
        if internal and internal[-1][0] == int(target):  # poppler cuts a link's text into runs of one font
            internal[-1] = (int(target), internal[-1][1] + text)
        else:
            internal.append((int(target), text))
    assert len(internal) >= 10, f"only {len(internal)} links inside the {lang} PDF"
    assert all(1 <= target <= pages for target, _ in internal), "a link points past the last page"
    # The home page's reading path links each page by its title: those land on that title's page.
    to_titles = [(target, squeeze(text)) for target, text in internal if squeeze(text) in page_of]
    assert len(to_titles) >= 3, f"no link of the {lang} PDF carries a heading's title: {internal[:5]}"
    wrong = [(text, target, page_of[text]) for target, text in to_titles if target != page_of[text]]
    assert not wrong, f"links that miss their page (title, target, page): {wrong}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_print_page_keeps_results_and_light_figures_only(site: Path, lang: str) -> None:
    page = parsed_print_page(site, lang)
    tabbed = sum((DOCS / lang / source).read_text(encoding="utf-8").count('source="tabbed-right"') for source in PAGES if source.endswith(".md"))
    assert len(page.select(".exec-result")) == tabbed, "every computed result is kept, once"
    assert not page.select(".tabbed-set input[id^='exec-'], .tabbed-labels"), "a code tab is left"
    assert page.select('img[src*="#only-light"]') and not page.select('img[src*="#only-dark"]'), "figures: the light variant only"
    ids = {element["id"] for element in page.find_all(id=True)}
    jumps = [link["href"][1:] for link in page.select('a[href^="#"]')]
    assert len(jumps) >= 20 and set(jumps) <= ids, f"links inside the print page without a target: {sorted(set(jumps) - ids)[:5]}"
    assert len(ids) == len(page.find_all(id=True)), "two elements share an id"
    playground = page.select_one("#page-playground")
    assert [child.name for child in playground.find_all(recursive=False)] == ["h1", "p"], "the playground is its title and a link"
    assert not page.select(".qkv-playground"), "a playground's controls are left"



@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_emoji_are_printed(pdf_site: Path, lang: str) -> None:
    # Noto Color Emoji where it is installed (the deploy workflow installs it), else the site's own
    # emoji font, which the print page names: on no machine do 📌 and ✅ print as boxes.
    text = "".join(pages_text(pdf_path(pdf_site, lang)))
    assert text.count("📌") >= 5 and "✅" in text
    from qkv_site.builder.emoji_font import SITE_PATH
    from qkv_site.tools.pdf.combine import STYLESHEET

    assert f'url("/{SITE_PATH}")' in STYLESHEET.read_text(encoding="utf-8") and (pdf_site / SITE_PATH).is_file()


def page_links(pdf: Path) -> list[set[str]]:
    """The addresses each page of ``pdf`` links to (pdftohtml's links on the page's text), page by page."""
    pages = re.findall(r'<page number="\d+".*?</page>', pdf_xml(pdf), flags=re.DOTALL)
    return [set(html.unescape(href) for href in re.findall(r'<a href="([^"]+)"', page)) for page in pages]


def published(source: str, lang: str) -> str:
    """A page's address on the published site (the session's site is built for SITE_URL)."""
    return SITE_URL + page_url(source, lang).lstrip("/")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_cover_names_the_site_and_the_playground_page_where_to_use_it(pdf_site: Path, lang: str) -> None:
    pdf = pdf_path(pdf_site, lang)
    text, links = pages_text(pdf), page_links(pdf)
    home = published("index.md", lang)
    assert home in text[0] and home in links[0], f"the {lang} cover does not give the site's address {home}"
    assert LABELS[lang]["solutions"] in " ".join(text[0].split()), "the cover does not say where the solutions are"
    page_of = {squeeze(title): page for title, page in outline(pdf)}
    playground = page_of[squeeze(headings(pdf_site, lang, "playground.md")[0])]
    address = published("playground.md", lang)
    assert address in text[playground - 1] and address in links[playground - 1], f"the {lang} playground page does not link {address}"


def words_of(element: Tag) -> str:
    """The longest run of ``element``'s text between its formulas (and without its permalink), squeezed: words
    that come back out of the PDF as they are."""
    copy = BeautifulSoup(str(element), "html.parser")
    for node in copy.select("a.headerlink, .tabbed-set"):
        node.decompose()
    for formula in copy.select(".arithmatex"):
        formula.replace_with(MATH)
    return max((squeeze(piece) for piece in copy.get_text().split(MATH)), key=len)


def exercises(site: Path, lang: str) -> list[tuple[str, str]]:
    """(words of the exercise's title, words of its solution) for every exercise of the language's pages, in nav order."""
    found = []
    for source in PAGES:
        if not source.endswith(".md"):
            continue
        for title in built_page(site, source, lang).select('article h3[id^="exercise-"]'):
            solution = title.find_next_sibling(["details", "h2", "h3"])
            assert solution is not None and solution.name == "details" and "success" in solution["class"], f"{source}: {title.get_text()}"
            found.append((words_of(title), max((words_of(p) for p in solution.find_all("p", recursive=False)), key=len)))
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_exercise_is_followed_by_its_solution(pdf_site: Path, lang: str) -> None:
    found = exercises(pdf_site, lang)
    assert len(found) >= 20 and all(len(solution) >= 8 for _, solution in found), found
    text = squeeze("".join(pages_text(pdf_path(pdf_site, lang), "-raw")))  # in content order: no formula's text inside a line
    at = 0
    for k, (title, solution) in enumerate(found):
        heading = text.find(title, at)
        assert heading >= 0, f"exercise {title!r} is not in the {lang} PDF (after the previous one's solution)"
        answer = text.find(solution, heading)
        assert answer >= 0, f"the solution of {title!r} is not in the {lang} PDF after it: {solution!r}"
        following = found[k + 1][0] if k + 1 < len(found) else None
        assert following is None or text.find(following, heading + len(title)) > answer, f"the solution of {title!r} comes after the next exercise"
        at = answer


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_learned_widgets_are_printed_as_their_figures(pdf_site: Path, lang: str) -> None:
    pdf = pdf_path(pdf_site, lang)
    text, links = pages_text(pdf, "-layout"), page_links(pdf)
    address = published(LEARNED, lang)
    for task in TASKS:
        svg = figure_path(pdf_site, lang, task).read_text(encoding="utf-8")
        panels = printed_panels(svg, lang)
        # the figure's page: the one with its title (a figure is never cut in two)
        [page] = [number for number, page_text in enumerate(text, 1) if squeeze(FIGURE_LABELS[lang][f"title-{task}"]) in squeeze(page_text)]
        shown = {squeeze(line) for line in text[page - 1].splitlines()}  # as laid out on the page, line by line
        assert squeeze(FIGURE_LABELS[lang]["online"] + address) in shown, f"the {lang} {task} figure does not give the page's address"
        for panel in panels:
            assert squeeze(panel["verdict"]) in shown and squeeze("".join(panel["words"])) in shown, panel["verdict"]
            for label, cells in panel["rows"].items():
                assert squeeze(label + "".join(cells)) in shown, f"{lang} {task}: the row {label!r} of {panel['verdict']!r}"
        assert address in links[page - 1], f"the {lang} {task} figure does not link {address}"
        # drawn, not only written: the cells of the heaviest weights in the widget's colour
        with tempfile.TemporaryDirectory() as folder:
            subprocess.run(["pdftoppm", "-r", "50", "-f", str(page), "-l", str(page), "-png", str(pdf), f"{folder}/page"], check=True)
            [png] = Path(folder).glob("page*.png")
            pixels = np.asarray(Image.open(png).convert("RGB"), dtype=int)
        heaviest = np.array([int(HEAT[2][i:i + 2], 16) for i in (1, 3, 5)])
        assert (np.abs(pixels - heaviest).max(axis=-1) <= 2).sum() >= 100, f"the {lang} {task} figure's cells are not drawn on page {page}"
