"""The files the site serves for download (qkv_site.downloads), as the build makes them: qkv's wheel holds qkv
alone with pyproject.toml's metadata, the archive holds every program the pages show with a README that
names their pages, both are the same bytes whenever their inputs are, and they are made again only
when an input changes. (tests/build/test_served_downloads.py installs and runs what the built site serves.)"""

from __future__ import annotations

import ast
import io
import re
import shutil
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from mkdocs.config import load_config
from repository import ROOT

import qkv_site.downloads as downloads
import qkv_site.site_map as site_map
from qkv_site.downloads import made, source_date_epoch
from qkv_site.downloads.archive import ZIP_EPOCH
from qkv_site.project import Project, from_config, load_project
from qkv_site.site_map import nav_titles

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def copy_of_the_project(folder: Path) -> Project:
    """What the downloads are made of, copied into ``folder`` (new files: other times, other paths)."""
    for name in ("mkdocs.yml", "pyproject.toml"):
        shutil.copy(ROOT / name, folder / name)
    for name in ("docs_src", "overrides", "benchmarks/results"):
        shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
    for notebook in ROOT.glob("docs/*/notebook.ipynb"):
        (folder / notebook.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(notebook, folder / notebook.relative_to(ROOT))
    return load_project(folder / "mkdocs.yml")


def members(path: Path) -> dict[str, zipfile.ZipInfo]:
    with zipfile.ZipFile(path) as archive:
        return {info.filename: info for info in archive.infolist()}


def test_the_same_inputs_give_the_same_bytes_in_another_folder(project: Project, tmp_path: Path) -> None:
    here, there = made(project), made(copy_of_the_project(tmp_path))
    assert there.wheel.path.is_relative_to(tmp_path)  # made anew in the copy's own cache
    assert (there.wheel.name, there.programs.name) == (here.wheel.name, here.programs.name)
    assert there.wheel.path.read_bytes() == here.wheel.path.read_bytes()
    assert there.programs.path.read_bytes() == here.programs.path.read_bytes()


def test_every_file_in_them_carries_source_date_epoch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # 2023-11-14 22:13:20 UTC
    copy = copy_of_the_project(tmp_path)
    for path in made(copy).files:
        dates = {info.date_time for info in members(path.path).values()}
        assert dates == {(2023, 11, 14, 22, 13, 20)}, (path.name, dates)
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert source_date_epoch() == ZIP_EPOCH
    default = made(copy)
    assert {info.date_time for info in members(default.programs.path).values()} == {(1980, 1, 1, 0, 0, 0)}
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    with pytest.raises(ValueError, match="SOURCE_DATE_EPOCH must be whole seconds"):
        source_date_epoch()


def test_the_wheel_holds_qkv_alone_with_pyproject_s_metadata(project: Project) -> None:
    served = made(project)
    held = members(served.wheel.path)
    dist_info = f"{PYPROJECT['name']}-{PYPROJECT['version']}.dist-info"
    assert served.wheel.name == f"{PYPROJECT['name']}-{PYPROJECT['version']}-py3-none-any.whl"
    modules = {f"qkv/{path.relative_to(ROOT / 'src' / 'qkv').as_posix()}" for path in (ROOT / "src" / "qkv").rglob("*.py")}
    assert set(held) == modules | {f"{dist_info}/{name}" for name in ("METADATA", "WHEEL", "top_level.txt", "RECORD")}
    with zipfile.ZipFile(served.wheel.path) as wheel:
        metadata = wheel.read(f"{dist_info}/METADATA").decode()
    assert re.findall(r"^Requires-Dist: (.+)$", metadata, re.MULTILINE) == PYPROJECT["dependencies"]
    assert f"Requires-Python: {PYPROJECT['requires-python']}" in metadata
    assert served.requires == tuple(PYPROJECT["dependencies"]) and served.python == PYPROJECT["requires-python"].lstrip(">=")


def records_named_by_programs() -> set[str]:
    """The stored records a program or notebook names by its path, found by a pattern in their text."""
    texts = [path.read_text(encoding="utf-8") for path in (ROOT / "docs_src").rglob("*.py")]
    texts += [path.read_text(encoding="utf-8") for path in (ROOT / "docs").glob("*/notebook.ipynb")]
    named = {match for text in texts for match in re.findall(r"benchmarks/results/[\w.-]+\.json", text)}
    return {name for name in named if (ROOT / name).is_file()}


def test_the_archive_holds_the_programs_the_notebooks_the_records_and_a_readme_naming_each_page(project: Project) -> None:
    served = made(project)
    top = served.folder
    assert served.programs.name == f"{top}.zip" and top == f"qkv-programs-{PYPROJECT['version']}"
    held = members(served.programs.path)
    programs = {f"{top}/{path.relative_to(ROOT).as_posix()}" for path in (ROOT / "docs_src").rglob("*.py")}
    records = {f"{top}/{name}" for name in records_named_by_programs()}
    notebooks = {f"{top}/{name}" for name in served.notebooks.values()}
    assert set(held) == programs | records | notebooks | {f"{top}/README.md"}
    assert f"{top}/benchmarks/results/learned_model_coreference.json" in held, "a program loads the trained model"
    assert not {name for name in held if name.endswith(("site_build.json", "attention_speed.json"))}, \
        "records no program reads (the build's own) are not the reader's"
    assert {info.external_attr >> 16 for info in held.values()} == {0o100644}
    assert served.notebooks == {"zh": "notebook.zh.ipynb", "en": "notebook.en.ipynb"}
    with zipfile.ZipFile(served.programs.path) as archive:
        readme = archive.read(f"{top}/README.md").decode()
        assert archive.read(f"{top}/notebook.en.ipynb") == (ROOT / "docs" / "en" / "notebook.ipynb").read_bytes()
    assert f"pip install ./{served.wheel.name}" in readme and f"python {served.example}" in readme
    titles = {Path(entry.source).stem: entry.titles for entry in nav_titles(project.config_file)}
    for folder in sorted({path.parent.name for path in (ROOT / "docs_src").rglob("*.py")}):
        for lang, title in titles[folder].items():
            assert f"`docs_src/{folder}/`{'：' if lang == 'zh' else ': '}{title}" in readme, (folder, lang)
    config = project.config_file.read_text(encoding="utf-8")
    names = re.findall(r"^\s*site_name: \"?([^\"\n]+)\"?$", config, re.MULTILINE)  # the site's, then each language's
    assert len(names) == 2 and all(f"“{name}”" in readme for name in names), names
    version = PYPROJECT["dependencies"][0].split("==")[1]
    assert f"numpy {version}" in readme and "numpy==" not in readme, "the pin in reader words"


def test_a_dependency_not_pinned_to_one_version_stops_the_build() -> None:
    assert downloads.pinned(["numpy==2.4.6"]) == ("numpy 2.4.6",)
    for loose in ("numpy", "numpy>=2", "numpy==2.*", "numpy==2.4.6,<3"):
        with pytest.raises(ValueError, match="not pinned to one version"):
            downloads.pinned([loose])


def test_they_are_made_again_only_when_an_input_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = copy_of_the_project(tmp_path)
    first = made(copy)

    def no_build(*args: object, **kwargs: object) -> None:
        raise AssertionError("the downloads were made again from the same inputs")

    monkeypatch.setattr(downloads, "build_wheel", no_build)  # as qkv_site.downloads calls it
    assert made(copy) == first
    program = tmp_path / "docs_src" / "index" / "quick_start.py"
    program.write_text(program.read_text(encoding="utf-8") + "print('changed')\n", encoding="utf-8")
    monkeypatch.undo()
    second = made(copy)
    assert second.programs.path.parent != first.programs.path.parent and not first.programs.path.parent.exists()
    with zipfile.ZipFile(second.programs.path) as archive:
        assert archive.read(f"{second.folder}/docs_src/index/quick_start.py").endswith(b"print('changed')\n")


def test_they_take_the_nav_and_titles_mkdocs_loaded_and_read_no_mkdocs_yml(
        project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = copy_of_the_project(tmp_path)  # loaded by MkDocs, as a build loads it

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("the downloads read mkdocs.yml again instead of taking what MkDocs loaded")

    monkeypatch.setattr(site_map, "load_site_map", no_reading)
    monkeypatch.setattr(site_map, "nav_titles", no_reading)
    (tmp_path / "mkdocs.yml").unlink()
    there = made(copy)
    assert there.programs.path.read_bytes() == made(project).programs.path.read_bytes()


def edited(project: Project, old: str, new: str) -> Project:
    """``project`` with ``old`` replaced by ``new`` in its mkdocs.yml, loaded again by MkDocs."""
    text = project.config_file.read_text(encoding="utf-8")
    assert old in text
    project.config_file.write_text(text.replace(old, new), encoding="utf-8")
    return from_config(load_config(str(project.config_file)))


def test_a_changed_title_makes_them_again_and_an_unrelated_edit_of_mkdocs_yml_does_not(tmp_path: Path) -> None:
    copy = copy_of_the_project(tmp_path)
    first = made(copy)
    unrelated = edited(copy, "site_description: Transformer", "site_description: A Transformer")
    assert made(unrelated) == first  # the digest holds the titles, not the file
    retitled = edited(unrelated, '"Step by step: a complete example"', '"Step by step: one whole example"')
    second = made(retitled)
    assert second.programs.path.parent != first.programs.path.parent
    with zipfile.ZipFile(second.programs.path) as archive:
        readme = archive.read(f"{second.folder}/README.md").decode()
    assert "`docs_src/worked-example/`: Step by step: one whole example (" in readme


def test_a_project_without_what_they_are_made_of_gets_a_clear_error(tmp_path: Path) -> None:
    copy = copy_of_the_project(tmp_path)
    untitled = edited(copy, "- 逐步计算：一个完整的例子: worked-example.md", "- worked-example.md")
    with pytest.raises(ValueError, match="gives worked-example.md no title: the archive's README names"):
        made(untitled)
    (tmp_path / "docs_src" / "orphan").mkdir()
    (tmp_path / "docs_src" / "orphan" / "lost.py").write_text("print(1)\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"programs in \['docs_src/orphan/'\] belong to no page of the nav"):
        made(copy)
    (tmp_path / "pyproject.toml").unlink()
    with pytest.raises(ValueError, match="no pyproject.toml beside"):
        made(copy)
    with pytest.raises(ValueError, match="pymdownx.snippets has no base_path"):
        made(Project(copy.config_file, copy.docs_dir, copy.results_dir, copy.src_dir, programs_dir=None))


def imported_modules(source: str) -> set[str]:
    """The top-level modules a program imports."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("program", sorted((ROOT / "docs_src").rglob("*.py")), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_program_runs_on_the_wheel_and_numpy_alone(program: Path) -> None:
    # The reader has the served wheel (qkv), numpy and the standard library, not this project's build code.
    others = imported_modules(program.read_text(encoding="utf-8")) - {"qkv", "numpy"} - set(sys.stdlib_module_names)
    assert not others, f"{program.relative_to(ROOT)} imports {sorted(others)}, which a reader of the site does not have"


def test_a_zip_is_the_same_whatever_order_its_members_come_in() -> None:
    from qkv_site.downloads.archive import zip_bytes

    files = [("top/b.py", b"b"), ("top/a.py", b"a")]
    assert zip_bytes(files, 0) == zip_bytes(files[::-1], 0)
    with zipfile.ZipFile(io.BytesIO(zip_bytes(files, 0))) as archive:
        assert [info.date_time for info in archive.infolist()] == [(1980, 1, 1, 0, 0, 0)] * 2  # clamped to zip's earliest
