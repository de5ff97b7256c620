"""Printing a page, from either colour scheme (docs/assets/stylesheets/print.css): the article alone
on light paper, one light figure per figure, no code tabs, no controls, no navigation; the worked
example fits on six A4 pages."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from browser_support import DESKTOP, SiteServer
from site_pages import page_url

# At most this many A4 pages (4 for any other page printed here).
MAX_PAGES = {"worked-example.md": 6}  # its editor's notes print with it (the notes on scores, lengths and softmax)
PAGES = ["worked-example.md", "playground.md", "why-sqrt-dk.md"]
# Each page in both languages (the page counts follow the words) and from both schemes (the paper and
# ink follow the colours, which both languages share): the language printed from the dark scheme takes turns.
PRINTED_DARK = {"worked-example.md": "zh", "playground.md": "en", "why-sqrt-dk.md": "zh"}
CASES = [(lang, source, "dark" if lang == PRINTED_DARK[source] else "light") for source in PAGES for lang in ("zh", "en")]

# What is visible once the page is laid out for print.
PRINTED_JS = r"""() => {
  const shown = (el) => el.checkVisibility() && el.getBoundingClientRect().width > 0;
  const article = document.querySelector("article");
  // computed results outside the folded blocks (those do not print at all)
  const execSets = [...article.querySelectorAll(".tabbed-set")].filter((set) => set.querySelector(":scope > input[id^='exec-']") && !set.closest("details"));
  const ink = getComputedStyle(article).color.match(/\d+(\.\d+)?/g).map(Number);
  return {
    figures: [...article.querySelectorAll("figure")].filter((f) => f.querySelector("img")).map((figure) =>
      [...figure.querySelectorAll("img")].filter(shown).map((img) => img.getAttribute("src"))),
    tabLabels: execSets.filter((set) => shown(set.querySelector(".tabbed-labels"))).length,
    codeTabs: execSets.flatMap((set) => [...set.querySelectorAll(":scope > .tabbed-content > .tabbed-block")])
      .filter((block) => shown(block) && block.querySelector(":scope > .highlight, :scope > pre")).length,
    results: execSets.filter((set) => shown(set.querySelector(".tabbed-block"))).length,
    execSets: execSets.length,
    // buttons, menus, switches, and text fields that still look like fields (a border or a background)
    controls: [...document.querySelectorAll(".qkv-playground :is(button, select, [type=radio], [type=checkbox], [type=text])")].filter(shown)
      .filter((el) => el.type !== "text" || parseFloat(getComputedStyle(el).borderTopWidth) > 0
        || !["rgba(0, 0, 0, 0)", "transparent"].includes(getComputedStyle(el).backgroundColor)).length,
    playgroundCells: [...document.querySelectorAll(".qkv-playground:not([data-compact]) td input")].filter(shown).length,
    navigation: [".md-header", ".md-tabs", ".md-sidebar--primary", ".md-sidebar--secondary", ".md-footer", ".md-search", ".md-top"]
      .filter((selector) => [...document.querySelectorAll(selector)].some(shown)),
    // folded blocks (how a section is computed, an exercise's solution) that print: Material opens them all for print
    details: [...article.querySelectorAll("details")].filter(shown).map((d) => d.querySelector("summary").textContent.trim()),
    // the colour scheme Chromium fills the sheet (margins included) for when backgrounds print
    paperScheme: getComputedStyle(document.documentElement).colorScheme,
    ink,  // the article's text colour: dark on paper
  };
}"""


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
        page.emulate_media(media="print")
        page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")  # Material opens every folded block
        printed = page.evaluate(PRINTED_JS)
        where = f"{source} ({lang}) printed from the {scheme} scheme"
        for shown in printed["figures"]:
            assert len(shown) == 1 and shown[0].endswith("#only-light"), f"{where}: a figure prints as {shown}"
        assert printed["tabLabels"] == 0 and printed["codeTabs"] == 0, f"{where}: {printed['tabLabels']} tab bars and {printed['codeTabs']} code tabs print"
        assert printed["results"] == printed["execSets"], f"{where}: only {printed['results']} of {printed['execSets']} computed results print"
        assert printed["controls"] == 0, f"{where}: {printed['controls']} playground controls print"
        if source == "playground.md":
            assert printed["playgroundCells"] >= 16, f"{where}: the playground's matrices do not print ({printed['playgroundCells']} cells)"
        assert not printed["details"], f"{where}: folded blocks print: {printed['details']}"
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
