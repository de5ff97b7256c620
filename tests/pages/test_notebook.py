"""The notebooks: committed without outputs, executed at build time and published as pages, not JSON."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pytest
from bs4 import BeautifulSoup

from conftest import DOCS, LANGUAGES
from qkv.examples import worked_example
from site_pages import built_path

NOTEBOOKS = sorted(DOCS.glob("*/*.ipynb"))


def test_there_is_one_notebook_per_language() -> None:
    assert sorted(path.parent.name for path in NOTEBOOKS) == sorted(LANGUAGES)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.parent.name)
def test_notebooks_are_committed_without_outputs(path: Path) -> None:
    book = nbformat.read(path, as_version=4)
    nbformat.validate(book)
    for index, cell in enumerate(book.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name} cell {index} has outputs"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_built_notebook_is_a_page_with_executed_outputs(site: Path, lang: str) -> None:
    page = built_path(site, "notebook.ipynb", lang)
    html = page.read_text(encoding="utf-8")
    assert not html.lstrip().startswith("{"), "the notebook was published as raw JSON (mkdocs-static-i18n #198)"
    soup = BeautifulSoup(html, "html.parser")
    assert len(soup.select(".jp-Cell.jp-CodeCell")) >= 5
    outputs = " ".join(node.get_text() for node in soup.select(".jp-OutputArea-output"))
    with np.printoptions(precision=2, suppress=True):
        weights = str(worked_example().weights)
    assert weights in outputs, f"the executed notebook should print the weights {weights!r}"
    assert "Traceback" not in outputs and "Error" not in outputs


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_notebook_page_offers_the_ipynb_for_download(site: Path, lang: str) -> None:
    page = built_path(site, "notebook.ipynb", lang)
    links = [a["href"] for a in BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").select("a[href$='.ipynb']")]
    assert links, "no download link to the notebook"
    assert all((page.parent / href).resolve().is_file() for href in links), links
