"""Every path into the project comes from the MkDocs configuration the build runs with (qkv_site.project):
a configuration in another folder reads that folder's pages and results, and no module finds the project
from where its own file is."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
from repository import DOCS, ROOT

from qkv_site.builder.figure_markup import code_block
from qkv_site.pages import beyond_quadratic, playground
from qkv_site.project import Project, load_project

SRC = ROOT / "src"
OWN_PACKAGES = {"qkv", "qkv_site"}
PROJECT_WORDS = ("parents", ".parent.parent", '"docs"', '"benchmarks"', "mkdocs.yml", "docs_src", "results")


def _own_file(node: ast.AST) -> bool:
    """``__file__`` of this module, or ``qkv.__file__`` / ``qkv_site.<…>.__file__``: a file of the project's packages."""
    if isinstance(node, ast.Name):
        return node.id == "__file__"
    if isinstance(node, ast.Attribute) and node.attr == "__file__":
        base = node.value
        while isinstance(base, ast.Attribute):
            base = base.value
        return isinstance(base, ast.Name) and base.id in OWN_PACKAGES
    return False


def paths_from_own_files(source: str) -> list[str]:
    """The statements of ``source`` that reach past a package's own folder from its ``__file__`` (``parents[n]``,
    ``.parent.parent``) or name a project folder beside it; and every ``parents[`` at all."""
    found = [line.strip() for line in source.splitlines() if "parents[" in line]
    tree = ast.parse(source)
    for statement in ast.walk(tree):
        if not isinstance(statement, ast.stmt) or isinstance(statement, ast.FunctionDef | ast.ClassDef | ast.If):
            continue
        if any(_own_file(node) for node in ast.walk(statement)):
            text = ast.get_source_segment(source, statement) or ""
            if any(word in text for word in PROJECT_WORDS):
                found.append(text)
    return found


def test_the_check_finds_a_project_path_taken_from_a_module_s_file() -> None:
    assert paths_from_own_files("ROOT = Path(__file__).resolve().parents[3]\n")
    assert paths_from_own_files("import qkv_site\nROOT = Path(qkv_site.__file__).resolve().parent.parent\n")
    assert paths_from_own_files('RESULTS = Path(__file__).parent / "results"\n')
    assert not paths_from_own_files("SCRIPT = Path(__file__).with_name('typeset.cjs')\n")  # a file of the package itself
    assert not paths_from_own_files("import numpy as np\nLIBS = Path(np.__file__).parent.parent / 'numpy.libs'\n")


def test_no_module_finds_the_project_from_its_own_file() -> None:
    found = {str(path.relative_to(ROOT)): paths_from_own_files(path.read_text(encoding="utf-8")) for path in sorted(SRC.rglob("*.py"))}
    assert not {path: lines for path, lines in found.items() if lines}, "paths come from qkv_site.project, built from mkdocs.yml"


def test_the_repository_s_configuration_gives_its_folders(project: Project) -> None:
    assert project.config_file == ROOT / "mkdocs.yml" and project.root == ROOT
    assert project.docs_dir == DOCS
    assert project.results_dir == ROOT / "benchmarks" / "results" and project.src_dir == SRC
    assert load_project(ROOT / "mkdocs.yml") is project  # loaded once per process


def _elsewhere(folder: Path, project: Project, memory: dict) -> Project:
    """A configuration in ``folder``: pages in ``pages/``, results in ``measured/`` (the plugin's option)."""
    (folder / "pages" / "assets" / "javascripts" / "playground").mkdir(parents=True)
    script = project.docs_dir / "assets" / "javascripts" / "playground" / "playground.js"
    text = script.read_text(encoding="utf-8").replace(f"const LIMIT = {playground.max_cell(script.read_text(encoding='utf-8'))};",
                                                      "const LIMIT = 50;")
    (folder / "pages" / "assets" / "javascripts" / "playground" / "playground.js").write_text(text, encoding="utf-8")
    (folder / "measured").mkdir()
    shutil.copy(project.results_dir / "attention_speed.json", folder / "measured" / "attention_speed.json")
    (folder / "measured" / "attention_memory.json").write_text(json.dumps(memory), encoding="utf-8")
    (folder / "mkdocs.yml").write_text("site_name: elsewhere\ndocs_dir: pages\nplugins:\n  - qkv-site:\n      results_dir: measured\n",
                                       encoding="utf-8")
    return load_project(folder / "mkdocs.yml")


def test_a_configuration_in_another_folder_gives_the_page_values_of_its_own_files(tmp_path: Path, project: Project) -> None:
    memory = json.loads((project.results_dir / "attention_memory.json").read_text(encoding="utf-8"))
    for row in memory["results"]:
        row["tiled_peak_bytes"] += 64 * 1024  # the same growth, a larger constant
    elsewhere = _elsewhere(tmp_path, project, memory)
    assert (elsewhere.docs_dir, elsewhere.results_dir) == ((tmp_path / "pages").resolve(), (tmp_path / "measured").resolve())
    assert playground.values(elsewhere)["max_cell"] == "50" != playground.values(project)["max_cell"]
    here, there = beyond_quadratic.values(project)["memory"], beyond_quadratic.values(elsewhere)["memory"]
    assert there != here
    assert there == beyond_quadratic.memory_values(memory)  # computed from the results it was pointed at


def test_a_figure_s_repository_link_is_its_file_in_the_project(tmp_path: Path, project: Project) -> None:
    assert "https://github.com/o/r/blob/main/src/qkv_site/figures/memory.py" in code_block("memory", "en", "https://github.com/o/r", project)
    assert "blob/main" not in code_block("memory", "en", None, project)
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: no sources\n", encoding="utf-8")
    without_sources = load_project(tmp_path / "mkdocs.yml")
    with pytest.raises(ValueError, match=r"figure memory: its module is not in the project's sources"):
        code_block("memory", "en", "https://github.com/o/r", without_sources)
