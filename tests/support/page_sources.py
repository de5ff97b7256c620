"""The pages as the tests read them: a page's Markdown source, an editor's note in it, a notebook's cells,
a built page's article, and a program of docs_src/ run as pytest-codeblocks runs it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup
from pytest_codeblocks.main import stdout_io
from repository import DOCS, ROOT
from site_pages import built_page

DOCS_SRC = ROOT / "docs_src"


def source(lang: str, page: str) -> str:
    return (DOCS / lang / page).read_text(encoding="utf-8")


def note(lang: str, page: str, anchor: str) -> str:
    """The text of the editor's note after `<a id="anchor">` (up to the next heading or anchor)."""
    text = source(lang, page)
    start = text.index(f'<a id="{anchor}"></a>')
    rest = text[start + 1:]
    end = min((m.start() for m in re.finditer(r"^(#|<a id=)", rest, re.MULTILINE)), default=len(rest))
    return rest[:end]


def notebook_cells(lang: str) -> list[str]:
    notebook = json.loads((DOCS / lang / "notebook.ipynb").read_text(encoding="utf-8"))
    return ["".join(cell["source"]) for cell in notebook["cells"]]


def built_article(site: Path, page: str, lang: str) -> BeautifulSoup:
    return built_page(site, page, lang).select_one("article")  # shared: read it, never change it


def run_program(program: Path) -> tuple[dict[str, Any], str]:
    """A program's variables and what it printed, run as pytest-codeblocks runs a block: its code executed in
    fresh globals, its output caught by pytest-codeblocks' own `stdout_io`."""
    variables: dict[str, Any] = {"__MODULE__": "__main__"}
    with stdout_io() as printed:
        exec(compile(program.read_text(encoding="utf-8"), str(program), "exec"), variables)
    return variables, printed.getvalue()
