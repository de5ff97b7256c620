"""Whether the drawn figures are up to date: a digest of what they are drawn from, kept beside them in
``<folder>/<lang>/figures/.stamp`` (the build draws into ``.cache/figures/``).

Cheap on purpose (no matplotlib import): a build whose figures are current pays for one hash.

>>> import tempfile
>>> from qkv_site.project import load_project
>>> project = load_project(Path("mkdocs.yml"))
>>> with tempfile.TemporaryDirectory() as folder:
...     before = up_to_date(Path(folder), project)
...     for lang in project.languages:
...         (Path(folder) / lang / "figures").mkdir(parents=True)
...         _ = (Path(folder) / lang / "figures" / STAMP).write_text(source_digest(project), encoding="utf-8")
...     before, up_to_date(Path(folder), project)
(False, True)
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import qkv
import qkv_site.figures
import qkv_site.results
import qkv_site.svg_path
from qkv_site.cache_files import files_digest, numerics_fingerprint, python_files
from qkv_site.project import Project

STAMP = ".stamp"
# The math and the drawing code, found from the packages themselves (not a project path).
SOURCES = {"qkv": Path(qkv.__file__).resolve().parent, "qkv_site.figures": Path(qkv_site.figures.__file__).resolve().parent}
LIBRARIES = ("matplotlib", "manimgx-fonts-cjk", "uharfbuzz")  # the renderer, the font and what cuts it


def _module_file(module: ModuleType) -> tuple[str, Path]:
    """A module of the site as the digest names it (``qkv_site/svg_path.py``) and its file."""
    return module.__name__.replace(".", "/") + ".py", Path(str(module.__file__))


def source_digest(project: Project, sources: dict[str, Path] = SOURCES) -> str:
    """sha256 of everything the figures depend on: the `qkv` and figure sources, the project's benchmark
    results, matplotlib, the font, and the machine's arithmetic (`numerics_fingerprint`)."""
    files = [file for name, folder in sources.items() for file in python_files(folder, name)]
    files.append(_module_file(qkv_site.svg_path))  # writes every figure's paths
    # The measurement figures draw committed benchmark results, read by qkv_site.results: new results, new figures.
    files.append(_module_file(qkv_site.results))
    files += [(f"results/{path.name}", path) for path in qkv_site.results.result_files(project)]
    return files_digest(files, LIBRARIES, [numerics_fingerprint()])


def up_to_date(folder: Path, project: Project, languages: tuple[str, ...] | None = None) -> bool:
    """True when the ``figures/.stamp`` of each of ``languages`` (by default the project's) under
    ``folder`` holds the current `source_digest`."""
    digest = source_digest(project)
    stamps = [Path(folder) / lang / "figures" / STAMP for lang in (project.languages if languages is None else languages)]
    return all(stamp.is_file() and stamp.read_text(encoding="utf-8") == digest for stamp in stamps)
