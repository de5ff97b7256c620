"""The pages of the site as the nav lists them, and where each one lands in the built site."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup
from repository import DOCS, LANGUAGES, ROOT

from qkv_site.markdown_source import parse
from qkv_site.project import Project
from qkv_site.site_map import SiteMap, load_site_map
from qkv_site.tools.pdf import pdf_path
from qkv_site.tools.pdf.combine import combined_html

CONFIG = ROOT / "mkdocs.yml"
SITE_MAP: SiteMap = load_site_map(CONFIG)  # mkdocs.yml read once per test session


def nav_sources() -> list[str]:
    """Every page of the nav, as its path inside a language folder (``worked-example.md``)."""
    return list(SITE_MAP.nav)


def built_path(site: Path, source: str, lang: str) -> Path:
    """Where the page ``source`` of language ``lang`` is written in the built ``site``."""
    return SITE_MAP.page(source, lang).built(site)


def page_url(source: str, lang: str) -> str:
    """The site-relative URL of a page (``/en/worked-example/``)."""
    return "/" + SITE_MAP.page(source, lang).url


@cache  # asked by the light and the phone crawl's tests and the static-math tests
def expected_formulas(site: Path, lang: str, source: str) -> int:
    """How many formulas the page's sources hold. A Markdown page: the formulas pymdownx.arithmatex
    wrapped (one ``.arithmatex`` each, written ones and those markdown-exec generated, counted in the
    built article). A notebook: the $…$ / $$…$$ / \\(…\\) / \\[…\\] of its markdown cells."""
    if not source.endswith(".ipynb"):
        article = built_page(site, source, lang).select_one("article.md-content__inner")
        return len(article.select(".arithmatex")) if article else 0
    count = 0
    notebook = json.loads((ROOT / "docs" / lang / source).read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = parse("".join(cell["source"])).prose  # code is not math
        text = re.sub(r"`[^`]*`", " ", text)
        for pattern in (r"\$\$.+?\$\$", r"\\\[.+?\\\]", r"\\\(.+?\\\)", r"(?<![\\$])\$[^$\n]+?\$"):
            count += len(re.findall(pattern, text, flags=re.DOTALL))
            text = re.sub(pattern, " ", text, flags=re.DOTALL)
    return count


def is_pdf_edition(site: Path, target: Path) -> bool:
    """Whether ``target`` is one of the PDFs that ``python -m qkv_site.tools.pdf`` writes into the built site
    after ``mkdocs build`` (the home pages link them; tests/browser/test_pdf.py makes them and follows those links)."""
    return target in {pdf_path(site, lang) for lang in LANGUAGES}


@cache  # test_links_out and test_pdf read the same print page; making one takes seconds
def print_html(site: Path, lang: str) -> str:
    """The print page of ``lang`` that the PDF edition is made from, combined from the built ``site``."""
    return combined_html(site, SITE_MAP.pages(lang), SITE_MAP.root_home)


@cache  # many tests read the same built page: each file is parsed once per test process
def parsed_page(path: Path) -> BeautifulSoup:
    """A built HTML file, parsed; shared by every caller, so read it and never change it (a test that
    takes parts out parses its own copy)."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def built_page(site: Path, source: str, lang: str) -> BeautifulSoup:
    """The built page ``source`` of ``lang``, parsed once per process (`parsed_page`: read it, never change it)."""
    return parsed_page(built_path(site, source, lang))


@cache  # test_links_out and test_pdf read the same print page
def parsed_print_page(site: Path, lang: str) -> BeautifulSoup:
    """`print_html`, parsed once per process: read it, never change it."""
    return BeautifulSoup(print_html(site, lang), "html.parser")


def figure_function(lang: str, project: Project) -> dict[str, Any]:
    """The ``figure`` a page's template calls, for tests that read a page's text: the unit layer draws no
    figure, so each image's size is given as 0 × 0 instead of read from its drawn file."""
    from qkv_site.builder.figures import figure_macro

    return {"figure": figure_macro(lang, None, project, project.root / "figures", size=lambda path: (0, 0))}


def rendered(page: str, lang: str, project: Project) -> str:
    """docs/<lang>/<page> with its named values and figures filled in, as the build renders it (figures unsized;
    the nav and the pages' texts read from ``project``'s files, as the build of ``lang`` hands them over)."""
    import yaml

    from qkv_site.builder.page_values import render
    from qkv_site.site_nav import read_nav
    from qkv_site.translations.records import split_front_matter

    front, body = split_front_matter((DOCS / lang / page).read_text(encoding="utf-8"))
    meta = yaml.safe_load(front) if isinstance(front, str) else front
    return render(body, meta, f"{lang}/{page}", project, functions=figure_function(lang, project),
                  nav=read_nav(project.config_file, project.docs_dir, lang))


@cache
def _tex_by_mathml() -> dict[str, list[str]]:
    """The TeX of every formula of the build, by the MathML a page carries for it: pages carry no TeX
    (qkv_site.formulas.pages.without_tex), the build's formula cache keeps it with each formula."""
    from qkv_site.formulas.pages import page_markup

    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / ".cache" / "formulas").glob("*.json")):
        stored = json.loads(path.read_text(encoding="utf-8"))
        math = BeautifulSoup(page_markup(stored["html"], {}), "html.parser").select_one("math")
        if math is not None:
            found.setdefault(str(math), []).append(stored["tex"])
    return found


def formula_tex(container) -> list[str]:
    """The TeX a typeset formula of a built page (its ``mjx-container``, parsed) was made from: every TeX that
    typesets to the same MathML (``d_k`` and ``d_{k}``), shortest first. The site's build fills the cache."""
    math = container.select_one("math")
    candidates = _tex_by_mathml().get(str(math)) if math is not None else None
    assert candidates, f"a formula the build's cache does not hold: {str(container)[:200]}"
    return sorted(set(candidates), key=lambda tex: (len(tex), tex))
