"""What the site's downloads are made of (`Inputs`), found in the project, and the digest that names a set.

The programs the pages show (the project's ``programs_dir``), each language's notebook of the nav, the
stored records in ``results_dir`` that a program or notebook names by its path (`records_read`: the training
records and trained models some programs load; the others are read by the build alone), pyproject.toml (the wheel's metadata),
the titles of the pages that show programs (`program_folders`, for the archive's README) and `qkv`'s modules,
found from the imported package. The nav, its titles and the languages are the project's site map, made
from the configuration MkDocs loaded: mkdocs.yml is not read again. Each file is named as the archive
names it, so a moved file changes the digest.
"""

from __future__ import annotations

import json
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import qkv
from qkv_site.cache_files import files_digest, python_files
from qkv_site.downloads.archive import ProgramFolder
from qkv_site.project import Project
from qkv_site.site_map import SiteMap

PACKAGE = "qkv"


def package_modules() -> list[tuple[str, Path]]:
    """qkv's modules, found from the imported package (as the build's other caches find it)."""
    return python_files(Path(qkv.__file__).parent, PACKAGE)


def records_read(records: list[tuple[str, Path]], readers: list[Path]) -> list[tuple[str, Path]]:
    """The records (each under its name in the archive) whose name one of ``readers`` (programs, notebooks)
    contains: the archive holds what its programs read and nothing the build alone uses.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "run.py").write_text('open("benchmarks/results/a.json")', encoding="utf-8")
    >>> stored = [("benchmarks/results/a.json", folder / "a"), ("benchmarks/results/b.json", folder / "b")]
    >>> [name for name, _ in records_read(stored, [folder / "run.py"])]
    ['benchmarks/results/a.json']
    """
    texts = [path.read_text(encoding="utf-8") for path in readers]
    return [(name, path) for name, path in records if any(name in text for text in texts)]


def _inside(path: Path, root: Path, what: str) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        raise ValueError(f"{what} {path} is not inside the project's folder {root}: the archive keeps the paths "
                         "the programs use from there") from None


@dataclass(frozen=True)
class Inputs:
    """Everything the downloads are made of, each file under the name it has in the archive."""

    programs_folder: str  # docs_src
    programs: list[tuple[str, Path]]  # docs_src/<page>/<name>.py
    notebooks: dict[str, tuple[str, Path]]  # {lang: (notebook.<lang>.ipynb, its file)}
    results: list[tuple[str, Path]]  # benchmarks/results/<name>.json that a program or notebook reads
    results_folder: str
    pyproject: Path
    pages: list[ProgramFolder]  # the folders of programs in nav order, with their pages' titles (the README's)

    def digest(self, epoch: int) -> str:
        """What a set of downloads was made from: qkv, pyproject.toml, this package (the README's words
        among it), the programs, notebooks and records, the pages' titles in the README, the versions of
        what makes them, the time they carry and the zlib that compresses them."""
        own = [(f"qkv_site/downloads/{path.name}", path)  # this package: the code and the README's words
               for path in sorted(Path(__file__).parent.iterdir()) if path.suffix in (".py", ".jinja")]
        files = [*package_modules(), ("pyproject.toml", self.pyproject), *own,
                 *self.programs, *self.notebooks.values(), *self.results]
        pages = [[page.folder, dict(page.titles), list(page.programs)] for page in self.pages]
        return files_digest(files, libraries=["setuptools", "jinja2"],
                            extra=[f"pages {json.dumps(pages, ensure_ascii=False, sort_keys=True)}", f"epoch {epoch}",
                                   f"zlib {zlib.ZLIB_RUNTIME_VERSION}", f"python {sys.version_info[:2]}"])


def inputs_of(project: Project) -> Inputs:
    if project.programs_dir is None:
        raise ValueError(f"{project.config_file}: pymdownx.snippets has no base_path, so the site has no programs to serve "
                         "(the home page lists the downloads)")
    programs_name = _inside(project.programs_dir, project.root, "the programs' folder")
    programs = python_files(project.programs_dir, programs_name)
    if not programs:
        raise ValueError(f"{project.programs_dir} holds no programs: the archive would be empty")
    site_map = project.site_map
    if site_map is None:
        raise ValueError(f"the project of {project.config_file} has no nav: the archive's README names each "
                         "folder's page, and the archive holds each language's notebook of the nav")
    if not site_map.languages:
        raise ValueError(f"{project.config_file} has no i18n languages: the archive's README names each page "
                         "in every language")
    notebooks = {lang: (f"{Path(source).stem}.{lang}.ipynb", project.docs_dir / lang / source)
                 for source in site_map.nav if source.endswith(".ipynb") for lang in site_map.languages}
    missing = [str(path) for _, path in notebooks.values() if not path.is_file()]
    if missing:
        raise ValueError(f"the nav's notebooks {missing} are not there: the archive holds each language's notebook")
    results_folder = _inside(project.results_dir, project.root, "the results folder")
    stored = [(f"{results_folder}/{path.name}", path) for path in sorted(project.results_dir.glob("*.json"))]
    results = records_read(stored, [path for _, path in programs] + [path for _, path in notebooks.values()])
    pyproject = project.root / "pyproject.toml"
    if not pyproject.is_file():
        raise ValueError(f"no pyproject.toml beside {project.config_file}: qkv's wheel takes its name and version from it")
    pages = program_folders(programs_name, programs, site_map)
    return Inputs(programs_name, programs, notebooks, results, results_folder, pyproject, pages)


def program_folders(programs_folder: str, programs: list[tuple[str, Path]], site_map: SiteMap) -> list[ProgramFolder]:
    """The archive's folders of programs (``<programs_folder>/<page>/``) in nav order, each with its page's
    titles; a folder without a page in the nav, or whose page the nav gives no title, stops the build.

    >>> site = SiteMap(("index.md", "a.md"), ("zh", "en"), "zh", {"a.md": {"zh": "甲", "en": "A"}})
    >>> program_folders("docs_src", [("docs_src/a/run.py", Path("run.py"))], site)
    [ProgramFolder(folder='docs_src/a/', titles={'zh': '甲', 'en': 'A'}, programs=('run.py',))]
    """
    by_folder: dict[str, list[str]] = {}
    for name, _ in programs:
        folder, program = name.rsplit("/", 1)
        by_folder.setdefault(folder + "/", []).append(program)
    pages = []
    for source in site_map.nav:
        folder = f"{programs_folder}/{Path(source).stem}/"
        if folder in by_folder:
            if source not in site_map.titles:
                raise ValueError(f"the nav of {site_map.where} gives {source} no title: the archive's README names "
                                 "each folder's page by its title")
            pages.append(ProgramFolder(folder, site_map.titles[source], tuple(sorted(by_folder.pop(folder)))))
    if by_folder:
        raise ValueError(f"programs in {sorted(by_folder)} belong to no page of the nav: the archive's README "
                         "names each folder's page")
    return pages
