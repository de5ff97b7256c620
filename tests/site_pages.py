"""The pages of the site as the nav lists them, and where each one lands in the built site."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bs4 import BeautifulSoup
from mkdocs.config import load_config

from conftest import LANGUAGES, ROOT
from qkv_site.nav import flatten_nav
from qkv_site.tools.pdf import pdf_path

CONFIG = ROOT / "mkdocs.yml"


def nav_sources() -> list[str]:
    """Every page of the nav, as its path inside a language folder (``worked-example.md``)."""
    config = load_config(str(CONFIG))

    return flatten_nav(config["nav"])


def built_path(site: Path, source: str, lang: str) -> Path:
    """Where the page ``source`` of language ``lang`` is written in the built ``site``."""
    stem = source.rsplit(".", 1)[0]
    folder = site if lang == "zh" else site / lang
    return folder / "index.html" if stem == "index" else folder / stem / "index.html"


def page_url(source: str, lang: str) -> str:
    """The site-relative URL of a page (``/en/worked-example/``)."""
    stem = source.rsplit(".", 1)[0]
    prefix = "/" if lang == "zh" else f"/{lang}/"
    return prefix if stem == "index" else f"{prefix}{stem}/"


def expected_formulas(site: Path, lang: str, source: str) -> int:
    """How many formulas the page's sources hold. A Markdown page: the formulas pymdownx.arithmatex
    wrapped (one ``.arithmatex`` each, written ones and those markdown-exec generated, counted in the
    built article). A notebook: the $…$ / $$…$$ / \\(…\\) / \\[…\\] of its markdown cells."""
    if not source.endswith(".ipynb"):
        soup = BeautifulSoup(built_path(site, source, lang).read_text(encoding="utf-8"), "html.parser")
        article = soup.select_one("article.md-content__inner")
        return len(article.select(".arithmatex")) if article else 0
    count = 0
    notebook = json.loads((ROOT / "docs" / lang / source).read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        text = re.sub(r"```.*?```", " ", text, flags=re.DOTALL)  # code is not math
        text = re.sub(r"`[^`]*`", " ", text)
        for pattern in (r"\$\$.+?\$\$", r"\\\[.+?\\\]", r"\\\(.+?\\\)", r"(?<![\\$])\$[^$\n]+?\$"):
            count += len(re.findall(pattern, text, flags=re.DOTALL))
            text = re.sub(pattern, " ", text, flags=re.DOTALL)
    return count


def is_pdf_edition(site: Path, target: Path) -> bool:
    """Whether ``target`` is one of the PDFs that ``python -m qkv_site.tools.pdf`` writes into the built site
    after ``mkdocs build`` (the home pages link them; tests/test_pdf.py makes them and follows those links)."""
    return target in {pdf_path(site, lang) for lang in LANGUAGES}
