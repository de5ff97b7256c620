"""Printing a page, from either colour scheme (docs/assets/stylesheets/print.css): the article alone
on light paper, one light figure per figure, no code tabs, no controls, no navigation, every exercise's
solution open under its exercise; the worked example fits on eight A4 pages, why √dₖ on five. The learned-attention
page prints what its widgets show for the article's two sentences (qkv_site.builder.learned_print),
which the screen never downloads."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from browser_support import DESKTOP, LocalOnly, SiteServer
from learned_print_support import LEARNED, TASKS, figure_path, printed_panels
from repository import LANGUAGES, SITE_URL
from site_pages import page_url

from qkv.learning.sentences import ARTICLE_SENTENCE, ARTICLE_TWIN
from qkv_site.builder.learned_print import LABELS

WIDGET_SENTENCES = (ARTICLE_SENTENCE, ARTICLE_TWIN)

# At most this many A4 pages (4 for any other page printed here).
# (with the exercises' solutions and their results: the English worked example took 6 pages and why √dₖ 4 before they printed)
MAX_PAGES = {"worked-example.md": 8,  # its editor's notes print with it (the notes on scores, lengths and softmax)
             "why-sqrt-dk.md": 5}
PAGES = ["worked-example.md", "playground.md", "why-sqrt-dk.md"]
# Each page in both languages (the page counts follow the words) and from both schemes (the paper and
# ink follow the colours, which both languages share): the language printed from the dark scheme takes turns.
PRINTED_DARK = {"worked-example.md": "zh", "playground.md": "en", "why-sqrt-dk.md": "zh"}
CASES = [(lang, source, "dark" if lang == PRINTED_DARK[source] else "light") for source in PAGES for lang in ("zh", "en")]

# What is visible once the page is laid out for print.
PRINTED_JS = r"""() => {
  const shown = (el) => el.checkVisibility() && el.getBoundingClientRect().width > 0;
  const article = document.querySelector("article");
  // computed results (markdown-exec's tabbed-right: the result, then the code), outside the folded blocks that do
  // not print (those that do are the exercises' solutions); the reader may have left the code tab open
  const execSets = [...article.querySelectorAll(".tabbed-set")].filter((set) => set.querySelector(":scope > input[id^='exec-']")
    && !set.closest("details:not(.success)"));
  const ink = getComputedStyle(article).color.match(/\d+(\.\d+)?/g).map(Number);
  return {
    figures: [...article.querySelectorAll("figure")].filter((f) => f.querySelector("img")).map((figure) =>
      [...figure.querySelectorAll("img")].filter(shown).map((img) => img.getAttribute("src"))),
    tabLabels: execSets.filter((set) => shown(set.querySelector(".tabbed-labels"))).length,
    codeTabs: execSets.flatMap((set) => [...set.querySelectorAll(":scope > .tabbed-content > .tabbed-block")].slice(1)).filter(shown).length,
    results: execSets.filter((set) => shown(set.querySelector(".tabbed-block"))).length,
    execSets: execSets.length,
    // buttons, menus, switches, and text fields that still look like fields (a border or a background)
    controls: [...document.querySelectorAll(".qkv-playground :is(button, select, [type=radio], [type=checkbox], [type=text])")].filter(shown)
      .filter((el) => el.type !== "text" || parseFloat(getComputedStyle(el).borderTopWidth) > 0
        || !["rgba(0, 0, 0, 0)", "transparent"].includes(getComputedStyle(el).backgroundColor)).length,
    playgroundCells: [...document.querySelectorAll(".qkv-playground:not([data-compact]) td input")].filter(shown).length,
    navigation: [".md-header", ".md-tabs", ".md-sidebar--primary", ".md-sidebar--secondary", ".md-footer", ".md-search", ".md-top"]
      .filter((selector) => [...document.querySelectorAll(selector)].some(shown)),
    // folded blocks that print (Material opens them all for print), and the exercises' solutions (??? success):
    // [summary, whether what it folds prints too]
    details: [...article.querySelectorAll("details")].filter(shown).map((d) => d.querySelector("summary").textContent.trim()),
    solutions: [...article.querySelectorAll("details.success")].map((d) =>
      [d.querySelector("summary").textContent.trim(), [...d.children].filter((c) => c.tagName !== "SUMMARY").some(shown)]),
    // the colour scheme Chromium fills the sheet (margins included) for when backgrounds print
    paperScheme: getComputedStyle(document.documentElement).colorScheme,
    ink,  // the article's text colour: dark on paper
  };
}"""


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def pdf_pages(pdf: bytes) -> int:
    """The number of pages of a PDF: pdfinfo's count where poppler is installed, else the page objects."""
    if shutil.which("pdfinfo"):
        with tempfile.NamedTemporaryFile(suffix=".pdf") as file:
            file.write(pdf)
            file.flush()
            info = subprocess.run(["pdfinfo", file.name], capture_output=True, text=True, check=True).stdout
        return int(re.search(r"^Pages:\s+(\d+)", info, re.MULTILINE)[1])
    return len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))


def first_page_corner(pdf: bytes) -> tuple[int, int, int]:
    """The colour of the top-left pixel of a PDF's first page (in the margin), rendered by poppler."""
    from PIL import Image

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "page.pdf"
        path.write_bytes(pdf)
        subprocess.run(["pdftoppm", "-r", "20", "-f", "1", "-l", "1", "-png", str(path), str(Path(folder) / "page")], check=True)
        with Image.open(next(Path(folder).glob("page*.png"))) as image:
            return image.convert("RGB").getpixel((2, 2))


@pytest.mark.parametrize(("lang", "source", "scheme"), CASES, ids=[f"{lang}-{source[:-3]}-{scheme}" for lang, source, scheme in CASES])
def test_print(tabs, server: SiteServer, lang: str, source: str, scheme: str) -> None:
    with tabs.open(server, viewport=DESKTOP, color_scheme=scheme) as tab:
        tab.open(page_url(source, lang))
        page = tab.page
        page.evaluate("() => document.querySelectorAll('img[loading=lazy]').forEach((img) => { img.loading = 'eager'; })")
        page.wait_for_function("() => [...document.images].every((img) => img.complete)")
        # a reader who opened the code tab of a computed result: the result prints all the same
        page.evaluate("() => { const set = document.querySelector('article .tabbed-set:has(> input[id^=\"exec-\"])'); "
                      "if (set) set.querySelectorAll(':scope > input')[1].checked = true; }")
        page.emulate_media(media="print")
        page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")  # Material opens every folded block
        printed = page.evaluate(PRINTED_JS)
        where = f"{source} ({lang}) printed from the {scheme} scheme"
        for shown in printed["figures"]:
            assert len(shown) == 1 and shown[0].endswith("#only-light"), f"{where}: a figure prints as {shown}"
        assert printed["tabLabels"] == 0 and printed["codeTabs"] == 0, f"{where}: {printed['tabLabels']} tab bars and {printed['codeTabs']} code tabs print"
        assert printed["results"] == printed["execSets"], f"{where}: only {printed['results']} of {printed['execSets']} computed results print"
        assert (printed["execSets"] >= 2) == (source != "playground.md"), f"{where}: {printed['execSets']} computed results"
        assert printed["controls"] == 0, f"{where}: {printed['controls']} playground controls print"
        if source == "playground.md":
            assert printed["playgroundCells"] >= 16, f"{where}: the playground's matrices do not print ({printed['playgroundCells']} cells)"
        solutions = printed["solutions"]
        assert all(opened for _, opened in solutions), f"{where}: a solution prints folded: {solutions}"
        assert printed["details"] == [summary for summary, _ in solutions], f"{where}: the folded blocks that print: {printed['details']}"
        assert (len(solutions) >= 2) == (source != "playground.md"), f"{where}: {len(solutions)} exercises' solutions"
        assert not printed["navigation"], f"{where}: navigation prints: {printed['navigation']}"
        assert printed["paperScheme"] == "light", f"{where}: the sheet is filled for color-scheme {printed['paperScheme']}"
        assert max(printed["ink"][:3]) < 100, f"{where}: the text prints in rgb{tuple(printed['ink'])}, not dark ink"
        # One print, with "background graphics" on: backgrounds only paint, they move nothing, so the
        # page count is the same without them, and with them the margins must be white paper too.
        pdf = page.pdf(format="A4", print_background=True)
        pages = pdf_pages(pdf)
        if shutil.which("pdftoppm"):
            corner = first_page_corner(pdf)
            assert min(corner) > 240, f"{where}: with backgrounds, the page's margin prints as rgb{corner}"
        assert pages <= MAX_PAGES.get(source, 4), f"{where} takes {pages} A4 pages"
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


# What the live widget shows for a sentence typed into it: its verdict, its words and each column's cells.
WIDGET_VIEW_JS = r"""(root) => {
  const table = root.querySelector(".qkv-lw-table table");
  const labels = [...table.querySelectorAll("thead th")].slice(1).map((th) => th.textContent);
  const cells = [...table.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent));
  return {
    verdict: root.querySelector(".qkv-lw-verdict").textContent,
    words: [...table.querySelectorAll("tbody th")].map((th) => th.textContent),
    rows: Object.fromEntries(labels.map((label, k) => [label, cells.map((row) => row[k])])),
  };
}"""


def latin(text: str) -> str:
    """`text` without whitespace and without Chinese: what an SVG image's text is sure to come back out of a
    PDF as. Chromium writes an image's text by its glyphs alone, and a glyph that two characters share
    comes back as either (网 as the radical ⽹); the PDF edition puts the figure in the page instead."""
    return re.sub(r"[\s\u2e80-\u9fff\uff00-\uffef]+", "", text)


def pdf_text(pdf: bytes) -> str:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "page.pdf"
        path.write_bytes(pdf)
        return subprocess.run(["pdftotext", "-layout", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_learned_widgets_print_what_they_show_for_the_articles_sentences(browser, server: SiteServer, site: Path, lang: str) -> None:
    if not shutil.which("pdftotext"):
        pytest.skip("no pdftotext (sudo apt-get install poppler-utils)")
    address = SITE_URL + page_url(LEARNED, lang).lstrip("/")
    # a tab of its own: nothing of the page in its cache
    with LocalOnly(browser, server, viewport=DESKTOP) as tab:
        requested: list[str] = []
        tab.page.on("request", lambda request: requested.append(request.url))
        tab.open(page_url(LEARNED, lang))
        # read to the end, as the page weight is measured: every lazy image in view is fetched
        tab.page.evaluate("async () => { for (let y = 0; y < document.body.scrollHeight; y += innerHeight / 2) { scrollTo(0, y); "
                          "await new Promise(requestAnimationFrame); } }")
        tab.page.wait_for_function("() => [...document.querySelectorAll('article figure img')].filter((img) => img.checkVisibility())"
                                   ".every((img) => img.complete && img.naturalWidth > 0)")
        figures = [url for url in requested if "/figures/learned_" in url]
        assert len(set(figures)) >= 4, f"the page's own lazy figures were not all fetched: {figures}"
        on_screen = [url for url in requested if "learned-print" in url]
        assert not on_screen, f"the screen downloaded the print figures: {on_screen}"
        assert not any(block.is_visible() for block in tab.page.locator(".qkv-learned-print").all())
        # what each widget shows for the article's sentence (its first sentence) and the twin, typed in
        for task in TASKS:
            printed = printed_panels(figure_path(site, lang, task).read_text(encoding="utf-8"), lang)
            widget = tab.page.locator(f'.qkv-learned-widget[data-model="{task}"]')
            for sentence, panel in zip(WIDGET_SENTENCES, printed, strict=True):
                widget.locator("input.qkv-lw-text").fill(sentence)
                # the widget fetched its model when the box took the focus, and applies the sentence once it is here
                tab.page.wait_for_function("(root) => root.qkvWidget.model && !root.hasAttribute('aria-busy')", arg=widget.element_handle())
                assert widget.evaluate(WIDGET_VIEW_JS) == panel, f"{lang} {task}: the figure is not what the widget shows for {sentence!r}"
        pdf = tab.page.pdf(format="A4")  # as the browser's print: lazy images are loaded first
        assert len([url for url in requested if "learned-print" in url]) == 2, "the print did not load both figures"
        lines = {latin(line) for line in pdf_text(pdf).splitlines()}  # as laid out on the sheet
        for task in TASKS:
            svg = figure_path(site, lang, task).read_text(encoding="utf-8")
            for panel in printed_panels(svg, lang):
                assert latin(panel["verdict"]) in lines, f"{lang} {task}: {panel['verdict']!r} is not in the print"
                assert latin("".join(panel["words"])) in lines
                for label, cells in panel["rows"].items():  # each row of "it", a line: its label and its cells
                    assert latin(label + "".join(cells)) in lines, f"{lang} {task}: the row {label!r} is not in the print"
            assert latin(LABELS[lang]["online"] + address) in lines
        assert not tab.foreign, f"requests to other hosts: {tab.foreign}"


def test_the_learned_widgets_print_figures_show_on_paper_without_javascript(browser, server: SiteServer) -> None:
    # The rule that shows them is in print.css, which every page links: the widget's own stylesheet comes
    # with its script, so with JavaScript off only print.css can show them.
    with LocalOnly(browser, server, viewport=DESKTOP, java_script_enabled=False) as tab:
        tab.page.goto(server.url(page_url(LEARNED, "en")), wait_until="load")
        blocks = tab.page.locator(".qkv-learned-print")
        assert blocks.count() == len(TASKS)
        assert not any(block.is_visible() for block in blocks.all()), "on screen, the widgets' place shows no figure"
        assert not tab.page.locator("link[href*='learned.css']").count(), "the widget's stylesheet came without its script"
        tab.page.emulate_media(media="print")
        assert all(block.is_visible() for block in blocks.all()), "on paper without JavaScript, no figure of the widgets"
