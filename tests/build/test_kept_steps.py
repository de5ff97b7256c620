"""What the build makes of a page's text is kept between builds (qkv_site.cache_files.PageResults,
qkv_site.builder.kept_steps): made again when the text or the code that makes it changes, never otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from qkv_site.builder.kept_steps import KeptSteps
from qkv_site.builder.notebook_styles import used_styles
from qkv_site.cache_files import PageResults

PAGE = ('<style>.jp-Cell{color:var(--jp-a)}.jp-Unused{margin:0}.jupyter-wrapper{--jp-a:red;--jp-b:blue}</style>'
        '<div class="jupyter-wrapper jp-Cell">x</div>')


def _never(text: str) -> str:
    raise AssertionError("made again")


def test_the_same_text_of_the_same_page_is_read_not_made_again(tmp_path: Path) -> None:
    made = KeptSteps(tmp_path).notebook_styles.get("zh/notebook.ipynb", PAGE, used_styles)
    assert made == used_styles(PAGE)
    assert KeptSteps(tmp_path).notebook_styles.get("zh/notebook.ipynb", PAGE, _never) == made  # the next build
    with pytest.raises(AssertionError, match="made again"):  # another page's result is its own
        KeptSteps(tmp_path).notebook_styles.get("en/notebook.ipynb", PAGE, _never)


def test_a_page_keeps_its_latest_result_only(tmp_path: Path) -> None:
    kept = PageResults(tmp_path, [])
    kept.get("zh/a.md", "one", str.upper)
    assert kept.get("zh/a.md", "two", str.upper) == "TWO"
    assert kept.get("zh/b.md", "one", str.upper) == "ONE"
    assert sorted(path.parent.name for path in tmp_path.rglob("*.pickle")) == ["zh__a.md", "zh__b.md"]


def test_other_code_makes_every_result_again_and_the_old_ones_go(tmp_path: Path) -> None:
    step = tmp_path / "step.py"
    step.write_text("def make(text): return text.upper()\n", encoding="utf-8")
    PageResults(tmp_path / "kept", [("step.py", step)]).get("zh/a.md", "one", str.upper)
    step.write_text("def make(text): return text.lower()\n", encoding="utf-8")
    changed = PageResults(tmp_path / "kept", [("step.py", step)])
    assert changed.get("zh/a.md", "ONE", str.lower) == "one"
    assert len(list((tmp_path / "kept").iterdir())) == 1  # the other code's results went
