"""Whether the figures in the docs are up to date: a digest of what they are drawn from, kept in ``figures/.stamp``.

Cheap on purpose (no matplotlib import): a build whose figures are current pays for one hash.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as docs:
...     before = up_to_date(Path(docs))
...     for lang in LANGUAGES:
...         (Path(docs) / lang / "figures").mkdir(parents=True)
...         _ = (Path(docs) / lang / "figures" / STAMP).write_text(source_digest(), encoding="utf-8")
...     before, up_to_date(Path(docs))
(False, True)
"""

from __future__ import annotations

from pathlib import Path

from qkv_site.cache_files import files_digest, python_files
from qkv_site.figures import results
from qkv_site.figures.labels import LANGUAGES

STAMP = ".stamp"
SRC = Path(__file__).resolve().parents[2]  # src/
SOURCES = ("qkv", "qkv_site/figures")  # the math and the drawing code
LIBRARIES = ("matplotlib", "manimgx-fonts-cjk", "uharfbuzz")  # the renderer, the font and what cuts it


def source_digest(src: Path = SRC, result_files: list[Path] | None = None) -> str:
    """sha256 of everything the figures depend on: the `qkv` and figure sources, benchmark results, matplotlib, the font."""
    files = [file for package in SOURCES for file in python_files(src / package, package.replace("/", "."))]
    # The measurement figures draw committed benchmark results: new results, new figures.
    measured = results.result_files() if result_files is None else result_files
    files += [(f"benchmarks/results/{path.name}", path) for path in measured]
    return files_digest(files, LIBRARIES)


def up_to_date(docs_dir: Path, digest: str | None = None) -> bool:
    """True when every language's ``figures/.stamp`` holds the current `source_digest`."""
    digest = digest or source_digest()
    stamps = [Path(docs_dir) / lang / "figures" / STAMP for lang in LANGUAGES]
    return all(stamp.is_file() and stamp.read_text(encoding="utf-8") == digest for stamp in stamps)
