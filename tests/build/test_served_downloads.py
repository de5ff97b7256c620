"""What the built site serves for download is enough to run its code: the home page lists each served file
with its real size and sha256, its commands name the served files, the served wheel installs into a
fresh environment with nothing but numpy, and every program and notebook of the served archive, run
there, prints what the pages show.

The reader's environment is a new venv (``python -m venv``) with pip run against it from this environment,
no package index and no pip configuration: numpy, the wheel's one dependency, is this environment's own,
linked in by a ``.pth`` file (only numpy, so that anything else the wheel needed would be missing), and
pip must find the wheel's requirement satisfied by it. Programs run with ``python -I``: neither
PYTHONPATH nor this checkout's sources are seen.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from dataclasses import dataclass
from functools import cache
from importlib.metadata import distribution
from pathlib import Path, PurePosixPath
from urllib.parse import urljoin

import numpy
import pytest
from bs4 import Tag
from repository import DOCS, LANGUAGES, ROOT
from site_pages import built_page, nav_sources, rendered

from qkv.complexity import format_bytes
from qkv_site.markdown_source import read
from qkv_site.project import Project

PROGRAMS = sorted(str(path.relative_to(ROOT / "docs_src")) for path in (ROOT / "docs_src").rglob("*.py"))
NOTEBOOK = "notebook.ipynb"
INCLUDE = re.compile(r'^--8<--\s+"([^"]+)"\s*$', re.MULTILINE)


@dataclass(frozen=True)
class Served:
    """The files the built home page lists, as the site serves them."""

    wheel: Path
    archive: Path


def listed(site: Path, lang: str) -> list[tuple[Tag, Path]]:
    """Each entry of the home page's downloads and the built file its link leads to."""
    page = built_page(site, "index.md", lang)
    base = "/" if lang == "zh" else f"/{lang}/"
    entries = []
    for item in page.select(".downloads li"):
        link = item.find("a", href=True)
        assert isinstance(link, Tag), f"{lang} home page: a download without a link: {item.get_text()!r}"
        entries.append((item, site / urljoin(base, str(link["href"])).lstrip("/")))
    return entries


@pytest.fixture(scope="module")
def served(site: Path) -> Served:
    files = [path for _, path in listed(site, "zh")]
    wheels, archives = [p for p in files if p.suffix == ".whl"], [p for p in files if p.suffix == ".zip"]
    assert len(wheels) == 1 and len(archives) == 1, f"the home page lists {[p.name for p in files]}: one wheel and one zip"
    return Served(wheels[0], archives[0])


def link_numpy_only(venv_python: Path, folder: Path) -> None:
    """Make this environment's numpy (its package, its bundled libraries, its metadata) and nothing else
    importable in the venv of ``venv_python``."""
    own = Path(numpy.__file__).parent
    dist = distribution("numpy")
    metadata = {file.parts[0] for file in dist.files or [] if file.parts[0].endswith(".dist-info")}
    assert len(metadata) == 1, f"numpy's metadata folder: {metadata}"
    folder.mkdir()
    for path in (own, own.parent / "numpy.libs", Path(str(dist.locate_file(metadata.pop())))):
        if path.exists():
            (folder / path.name).symlink_to(path)
    purelib = subprocess.run([str(venv_python), "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "numpy-of-the-tests.pth").write_text(f"{folder}\n", encoding="utf-8")


@pytest.fixture(scope="module")
def reader_python(served: Served, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv's Python with the served wheel installed as the home page says, offline."""
    folder = tmp_path_factory.mktemp("reader")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder / "venv")], check=True)
    python = folder / "venv" / Path(sysconfig.get_path("scripts")).name / Path(sys.executable).name
    link_numpy_only(python, folder / "numpy-only")
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", str(served.wheel)],
                             capture_output=True, text=True, env=env, timeout=300)
    assert install.returncode == 0, f"the served wheel does not install with numpy alone:\n{install.stdout}\n{install.stderr}"
    return python


@pytest.fixture(scope="module")
def unpacked(served: Served, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The served archive, unpacked; its one top folder."""
    folder = tmp_path_factory.mktemp("programs")
    with zipfile.ZipFile(served.archive) as archive:
        archive.extractall(folder)
    [top] = list(folder.iterdir())
    return top


def run(python: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    return subprocess.run([str(python), "-I", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=600)


# ---- the home page ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_home_page_lists_every_served_file_with_its_size_and_sha256(site: Path, lang: str) -> None:
    entries = listed(site, lang)
    assert sorted(path for _, path in entries) == sorted((site / "downloads").iterdir())
    for item, path in entries:
        assert path.is_file(), f"{lang} home page links {path.relative_to(site)}, which the site does not serve"
        content = path.read_bytes()
        text = item.get_text()
        assert path.name in text and f"{hashlib.sha256(content).hexdigest()}" in text, text
        assert format_bytes(len(content)) in text, (format_bytes(len(content)), text)


def hands_on_commands(site: Path, lang: str) -> str:
    """The shell commands of the home page's hands-on section, as a reader copies them."""
    heading = built_page(site, "index.md", lang).find(id="hands-on")
    assert isinstance(heading, Tag)
    block = heading.find_next("code")
    while block is not None and "pip install" not in block.get_text():
        block = block.find_next("code")
    assert isinstance(block, Tag), f"{lang} home page: no install command under #hands-on"
    return block.get_text()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_hands_on_commands_use_only_the_served_files(site: Path, lang: str, served: Served) -> None:
    commands = hands_on_commands(site, lang)
    with zipfile.ZipFile(served.archive) as archive:
        names = set(archive.namelist())
    [top] = {name.split("/")[0] for name in names}
    assert f"pip install ./{served.wheel.name}" in commands, commands
    assert f"-m zipfile -e {served.archive.name} ." in commands and f"cd {top} " in commands, commands
    [program] = re.findall(r"python (\S+\.py)", commands)
    assert f"{top}/{program}" in names, f"the commands run {program}, which the archive does not hold"
    assert "git clone" not in commands and "constraints.txt" not in commands, "the reader's commands need the repository"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_home_page_names_the_exact_numpy_the_wheel_pins_and_how_to_check_a_sha256(
        site: Path, lang: str, served: Served) -> None:
    with zipfile.ZipFile(served.wheel) as wheel:
        [metadata] = [name for name in wheel.namelist() if name.endswith(".dist-info/METADATA")]
        [requirement] = re.findall(r"^Requires-Dist: (.+)$", wheel.read(metadata).decode(), re.MULTILINE)
    name, version = requirement.split("==")
    heading = built_page(site, "index.md", lang).find(id="hands-on")
    assert isinstance(heading, Tag)
    section = "".join(heading.find_all_next(string=True))  # the hands-on section and what follows it
    assert f"{name} {version}" in section and requirement not in section, "the pin in reader words, not pip's string"
    assert "sha256sum" in section and "certutil -hashfile" in section


def test_a_plain_build_lists_the_downloads_too(project: Project) -> None:
    # A build without REPO_URL (mkdocs build, mkdocs serve) renders the same hands-on section: the downloads
    # and their commands do not depend on the repository.
    for lang in LANGUAGES:
        text = rendered("index.md", lang, project)
        section = text[text.index("{ #hands-on }"):text.index("{ #pdf-edition }")]
        assert ".whl](../downloads/" in section and ".zip](../downloads/" in section and "git clone" not in section


# ---- the wheel -------------------------------------------------------------------------------------------

def test_the_served_wheel_holds_qkv_alone_and_needs_only_numpy(served: Served) -> None:
    with zipfile.ZipFile(served.wheel) as wheel:
        names = wheel.namelist()
        [metadata] = [name for name in names if name.endswith(".dist-info/METADATA")]
        requires = re.findall(r"^Requires-Dist: (.+)$", wheel.read(metadata).decode(), re.MULTILINE)
        dates = {info.date_time for info in wheel.infolist()}
    assert {PurePosixPath(name).parts[0] for name in names} == {"qkv", metadata.split("/")[0]}
    assert {f"qkv/{path.relative_to(ROOT / 'src' / 'qkv').as_posix()}" for path in (ROOT / "src" / "qkv").rglob("*.py")} <= set(names)
    assert [re.split(r"[=<>!~ ;]", requirement)[0] for requirement in requires] == ["numpy"], requires
    assert len(dates) == 1, f"the wheel's files carry {len(dates)} different times: it is not reproducible"


def test_the_served_wheel_is_what_the_reader_imports(reader_python: Path, tmp_path: Path) -> None:
    found = run(reader_python, ["-c", "import qkv, numpy, importlib.util; print(qkv.__file__); "
                                      "print(importlib.util.find_spec('qkv_site'))"], cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    where, site_package = found.stdout.splitlines()
    assert Path(where).is_relative_to(reader_python.parent.parent), f"qkv imported from {where}, not the reader's venv"
    assert site_package == "None", "the reader's environment sees qkv_site: the programs would not be run on qkv alone"


# ---- the archive -----------------------------------------------------------------------------------------

def test_the_archive_holds_every_program_both_notebooks_the_records_and_a_readme(unpacked: Path) -> None:
    held = {path.relative_to(unpacked).as_posix() for path in unpacked.rglob("*") if path.is_file()}
    programs = {f"docs_src/{name}" for name in PROGRAMS}
    notebooks = {f"notebook.{lang}.ipynb" for lang in LANGUAGES}
    texts = [(ROOT / "docs_src" / name).read_text(encoding="utf-8") for name in PROGRAMS]
    records = {name for text in texts for name in re.findall(r"benchmarks/results/[\w.-]+\.json", text)}
    assert records and held == programs | notebooks | records | {"README.md"}
    for name in programs:
        assert (unpacked / name).read_bytes() == (ROOT / name).read_bytes(), name
    readme = (unpacked / "README.md").read_text(encoding="utf-8")
    assert "怎样运行" in readme and "How to run them" in readme and unpacked.name in readme


@cache
def programs_run_on(page: str, lang: str) -> set[str]:
    """The programs (``<page>/<name>.py``) that the Markdown page runs and shows (``python exec="on"`` blocks)."""
    fences = read(DOCS / lang / page).fences
    return {name for fence in fences if 'exec="on"' in fence.info for name in INCLUDE.findall(fence.body)}


def shown_outputs(site: Path, program: str) -> list[tuple[str, str]]:
    """(where, output) for every place a page shows ``program`` (docs_src/<program>) with its result: the
    block of its source, then the result markdown-exec wrote beside it (the next block, or the other tab)."""
    source = (ROOT / "docs_src" / program).read_text(encoding="utf-8")
    found = []
    for lang in LANGUAGES:
        for page in nav_sources():
            if not page.endswith(".md") or program not in programs_run_on(page, lang):
                continue
            for code in built_page(site, page, lang).select("div.highlight"):
                if code.get_text() != source:
                    continue
                tab = code.find_parent(class_="tabbed-block")
                result = tab.find_previous_sibling(class_="tabbed-block") if tab is not None else code.find_next_sibling()
                printed = result.select_one("pre > code") if isinstance(result, Tag) else None
                assert printed is not None, f"{lang}/{page}: {program} without its result"
                found.append((f"{lang}/{page}", printed.get_text()))
    return found


@pytest.mark.parametrize("program", PROGRAMS)
def test_each_program_of_the_archive_prints_in_the_reader_s_venv_what_its_pages_show(
        program: str, site: Path, reader_python: Path, unpacked: Path) -> None:
    shown = shown_outputs(site, program)
    assert {where.split("/")[0] for where, _ in shown} == set(LANGUAGES), f"{program} is shown in {shown}: not in both languages"
    result = run(reader_python, [f"docs_src/{program}"], cwd=unpacked)
    assert result.returncode == 0, f"{program} fails with only the served files:\n{result.stderr[-3000:]}"
    for where, output in shown:
        assert result.stdout == output, f"{where} shows other output than {program} prints in the reader's venv"


# Runs a notebook's code cells in order in one namespace, as a kernel would, and prints what each printed (JSON).
NOTEBOOK_CELLS = """
import contextlib, io, json, sys
cells = [cell for cell in json.load(open(sys.argv[1], encoding="utf-8"))["cells"] if cell["cell_type"] == "code"]
namespace, printed = {"__name__": "__main__"}, []
for number, cell in enumerate(cells):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile("".join(cell["source"]), f"cell {number}", "exec"), namespace)
    printed.append(out.getvalue())
sys.stdout.write(json.dumps(printed))
"""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_notebook_of_the_archive_prints_in_the_reader_s_venv_what_its_page_shows(
        lang: str, site: Path, reader_python: Path, unpacked: Path) -> None:
    result = run(reader_python, ["-c", NOTEBOOK_CELLS, f"notebook.{lang}.ipynb"], cwd=unpacked)
    assert result.returncode == 0, f"notebook.{lang}.ipynb fails with only the served files:\n{result.stderr[-3000:]}"
    printed = [text.strip("\n") for text in json.loads(result.stdout) if text]  # a cell that prints nothing shows nothing
    # What the page shows, output by output in page order (the build merges a cell's printed text into one
    # output; the <pre> adds a line break before and after it).
    shown = [output.get_text().strip("\n") for output in built_page(site, NOTEBOOK, lang).select(".jp-OutputArea-output")]
    assert len(printed) >= 5, f"notebook.{lang}.ipynb printed {len(printed)} outputs"
    assert shown == printed, f"the {lang} notebook's page shows other output than its cells print in the reader's venv"
