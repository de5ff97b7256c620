"""A notebook page with only the parts of JupyterLab's stylesheet it uses (qkv_site.builder.notebook_styles),
kept between builds by the page's HTML."""

from __future__ import annotations

from pathlib import Path

import pytest

from qkv_site.builder import notebook_styles
from qkv_site.builder.notebook_styles import kept_used_styles, used_styles

PAGE = ('<style>.jp-Cell{color:var(--jp-a)}.jp-Unused{margin:0}.jupyter-wrapper{--jp-a:red;--jp-b:blue}</style>'
        '<div class="jupyter-wrapper jp-Cell">x</div>')


def test_a_page_written_again_the_same_reads_its_styles_kept_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert kept_used_styles(PAGE, tmp_path, "zh/notebook.ipynb") == used_styles(PAGE)

    def no_reducing(page_html: str) -> str:
        raise AssertionError("reduced again")

    monkeypatch.setattr(notebook_styles, "used_styles", no_reducing)
    reduced = '<style>.jp-Cell{color:var(--jp-a)}.jupyter-wrapper{--jp-a:red}</style><div class="jupyter-wrapper jp-Cell">x</div>'
    assert kept_used_styles(PAGE, tmp_path, "zh/notebook.ipynb") == reduced
    with pytest.raises(AssertionError, match="reduced again"):  # another page's entry is its own
        kept_used_styles(PAGE, tmp_path, "en/notebook.ipynb")


def test_a_page_keeps_its_latest_entry_only(tmp_path: Path) -> None:
    kept_used_styles(PAGE, tmp_path, "zh/notebook.ipynb")
    edited = PAGE + '<p class="jp-Unused">y</p>'
    assert ".jp-Unused{margin:0}" in kept_used_styles(edited, tmp_path, "zh/notebook.ipynb")
    assert len(list(tmp_path.rglob("page.html"))) == 1
