"""The notebook page (notebook.ipynb, both languages): committed without outputs, executed at build time and
published as a page, not JSON; its exercise changes what it says, and its printed numbers read cleanly."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
from bs4 import BeautifulSoup
from page_sources import built_article, notebook_cells
from repository import DOCS, LANGUAGES
from site_pages import built_path

from qkv.examples import worked_example

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


# The notebook's exercise and its printed numbers --------------------------------------------------


def test_the_notebook_exercise_changes_only_one_dot_product() -> None:
    w_q = worked_example().w_q.copy()
    w_q[0] = [0, 1, 1]
    before, after = worked_example().scores[0], worked_example(w_q=w_q).scores[0]
    assert before[0] == after[0] and before[1] != after[1], "only the dot product with the Key of “love” changes"
    for lang, old in (("zh", "它和两个 Key 的点积也就变了"), ("en", "its dot products with both Keys changed")):
        cells = notebook_cells(lang)
        assert not any(old in cell for cell in cells), f"{lang}/notebook.ipynb still says both dot products change"
        assert any("changed.scores[0]" in cell for cell in cells), f"{lang}/notebook.ipynb: the exercise cell prints the scores"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_notebook_prints_no_space_before_a_closing_bracket(site: Path, lang: str) -> None:
    outputs = " ".join(node.get_text() for node in built_article(site, "notebook.ipynb", lang).select(".jp-OutputArea"))
    assert "0.64" in outputs, f"{lang}: the notebook's outputs were not found"
    assert not re.search(r"\d [)）]", outputs), f"{lang}: a printed number is followed by a space and a bracket"
