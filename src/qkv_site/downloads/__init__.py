"""What the site serves for download, so that a reader can run its code with nothing but the site.

Two files, made by the build and served at ``downloads/`` beside the home page, which lists them with
their sizes and sha256 (`Download`):

- qkv's wheel (`qkv_site.downloads.wheel`): the package `qkv` alone, built by setuptools from the
  imported package's modules and pyproject.toml's metadata; it depends on numpy only.
- the programs' archive (`qkv_site.downloads.archive`): every program the pages show (the project's
  ``programs_dir``, docs_src/), the notebook of each language, the stored training records and trained
  models the programs read (those of the project's ``results_dir`` a program names), and a README in
  Chinese and English saying how to run them.

What they are made of is found in the project by `qkv_site.downloads.inputs`.

Both are reproducible: every file in them is dated ``SOURCE_DATE_EPOCH`` (1980-01-01 when it is not
set), so the same inputs give the same bytes. They are kept in ``.cache/downloads/<digest>/``, named by
a digest of everything they are made of (`made`), and made again only when that changes. Nothing is
fetched.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File

import qkv
from qkv_site.cache_files import atomic_write, sweep
from qkv_site.downloads.archive import README, ZIP_EPOCH, readme, zip_bytes
from qkv_site.downloads.inputs import PACKAGE, Inputs, inputs_of, package_modules
from qkv_site.downloads.wheel import build_wheel, wheel_project
from qkv_site.project import Project

SITE_PATH = "downloads"  # where the built site serves them: <site>/downloads/<name>
EXAMPLE = "index/quick_start.py"  # the program the instructions run (the home page shows it), in programs_dir
_MANIFEST = "made.json"  # written last: a folder with it holds a whole set


def source_date_epoch() -> int:
    """The time every file of the downloads carries: ``SOURCE_DATE_EPOCH`` if set, else 1980-01-01 (UTC)."""
    text = os.environ.get("SOURCE_DATE_EPOCH", str(ZIP_EPOCH))
    if not text.isdigit():
        raise ValueError(f"SOURCE_DATE_EPOCH must be whole seconds since 1970, got {text!r}")
    return int(text)


@dataclass(frozen=True)
class Download:
    """One file the site serves."""

    path: Path

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def size(self) -> int:
        """In bytes."""
        return self.path.stat().st_size

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class Downloads:
    """What the site serves, and what its instructions name."""

    wheel: Download
    programs: Download
    folder: str  # the archive's top folder
    notebooks: Mapping[str, str]  # {lang: the notebook's name inside the archive}
    requires: tuple[str, ...]  # what the wheel depends on (numpy)
    python: str  # the oldest Python it runs on (3.11)
    example: str  # the program the instructions run, inside the archive

    @property
    def files(self) -> tuple[Download, Download]:
        return self.wheel, self.programs

    @property
    def pins(self) -> tuple[str, ...]:
        """The wheel's dependencies in reader words, each an exact version (``numpy 2.4.6``)."""
        return pinned(self.requires)


def pinned(requires: Iterable[str]) -> tuple[str, ...]:
    """Requirements pinned to one version, in reader words; the pages say pip installs that exact version,
    so a requirement that is not an exact pin stops the build.

    >>> pinned(["numpy==2.4.6"])
    ('numpy 2.4.6',)
    """
    words = []
    for requirement in requires:
        name, equals, version = requirement.partition("==")
        if not equals or not version or any(mark in version for mark in "<>=!~*,;"):
            raise ValueError(f"qkv's dependency {requirement!r} is not pinned to one version: the home page and the "
                             "archive's README say pip installs that exact version")
        words.append(f"{name.strip()} {version.strip()}")
    return tuple(words)


def _make(inputs: Inputs, folder: Path, epoch: int) -> None:
    """Build the wheel and the archive into ``folder``, the manifest last."""
    project = wheel_project(inputs.pyproject, Path(qkv.__file__).parent / "__init__.py")
    wheel_name, wheel = build_wheel(PACKAGE, package_modules(), project, epoch)
    top = f"{PACKAGE}-programs-{project.version}"
    example = f"{inputs.programs_folder}/{EXAMPLE}"
    if example not in {name for name, _ in inputs.programs}:
        raise ValueError(f"the instructions run {example}, which is not among the programs")
    notebooks = {lang: name for lang, (name, _) in inputs.notebooks.items()}
    python = project.oldest_python
    text = readme(folder=top, wheel=wheel_name, requires=pinned(project.dependencies), python=python,
                  pages=inputs.pages,
                  notebooks=notebooks, results=inputs.results_folder, example=example)
    files = [*inputs.programs, *inputs.notebooks.values(), *inputs.results]
    members = [(f"{top}/{name}", path.read_bytes()) for name, path in files] + [(f"{top}/{README}", text.encode("utf-8"))]
    atomic_write(folder / wheel_name, wheel)
    atomic_write(folder / f"{top}.zip", zip_bytes(members, epoch))
    manifest = {"wheel": wheel_name, "programs": f"{top}.zip", "folder": top, "notebooks": notebooks,
                "requires": list(project.dependencies), "python": python, "example": example}
    atomic_write(folder / _MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=1))


def made(project: Project) -> Downloads:
    """The site's downloads for ``project``: made into ``.cache/downloads/<digest>/`` unless they are there
    already (a rebuild with the same inputs reads them), older sets swept away."""
    inputs = inputs_of(project)
    epoch = source_date_epoch()
    root = project.cache_dir / "downloads"
    folder = root / inputs.digest(epoch)[:16]
    if not (folder / _MANIFEST).is_file():
        _make(inputs, folder, epoch)
    sweep(root, keep=folder)
    manifest = json.loads((folder / _MANIFEST).read_text(encoding="utf-8"))
    return Downloads(wheel=Download(folder / manifest["wheel"]), programs=Download(folder / manifest["programs"]),
                     folder=manifest["folder"], notebooks=manifest["notebooks"], requires=tuple(manifest["requires"]),
                     python=manifest["python"], example=manifest["example"])


def site_files(config: MkDocsConfig, downloads: Downloads) -> Iterable[File]:
    """The downloads as files of the built site, at ``downloads/<name>`` (pages link them from there)."""
    for download in downloads.files:
        yield File.generated(config, f"{SITE_PATH}/{download.name}", abs_src_path=str(download.path))
