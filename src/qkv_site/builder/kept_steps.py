"""The steps of the build that make something of a page's text alone, each kept between builds
(`qkv_site.cache_files.PageResults`: by the page's text and the code of the step).

A rebuild hands these steps the same text for every page it did not change, so it reads what they
made instead of making it again: the typeset formulas put into a finished page, the glossary's
tooltips, a notebook's table of contents and its reduced JupyterLab styles.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from qkv_site import glossary, svg_path
from qkv_site.builder import notebook_contents, notebook_styles, tooltips
from qkv_site.cache_files import PageResults, python_files
from qkv_site.formulas import pages as formula_pages


def _module(module: ModuleType) -> list[tuple[str, Path]]:
    return [(f"{module.__name__}.py", Path(str(module.__file__)))]


class KeptSteps:
    """One `PageResults` per step, in ``cache`` (the build's ``.cache`` folder)."""

    def __init__(self, cache: Path) -> None:
        formulas_code = python_files(Path(str(formula_pages.__file__)).parent, "formulas") + _module(svg_path)
        self.formulas = PageResults(cache / "finished-formulas", formulas_code)
        self.tooltips = PageResults(cache / "tooltips", _module(tooltips) + _module(glossary))
        self.contents = PageResults(cache / "notebook-contents", _module(notebook_contents), ["beautifulsoup4", "mkdocs"])
        self.notebook_styles = PageResults(cache / "notebook-styles", _module(notebook_styles), ["tinycss2"])
