"""The archive of the programs the pages show: a zip whose bytes depend only on what it holds.

Its members are in one folder (``qkv-programs-<version>/``), sorted by name, each dated the same fixed
time, with the same permissions (rw-r--r--) and compression, so the same files give the same zip on
every build. The README inside it (`readme`) says in Chinese and English what is there and how to run it.

>>> import io, zipfile
>>> data = zip_bytes([("a/b.py", b"print(1)\\n"), ("a/README.md", b"# a\\n")], epoch=315532800)
>>> [(m.filename, m.date_time) for m in zipfile.ZipFile(io.BytesIO(data)).infolist()]
[('a/README.md', (1980, 1, 1, 0, 0, 0)), ('a/b.py', (1980, 1, 1, 0, 0, 0))]
>>> data == zip_bytes([("a/README.md", b"# a\\n"), ("a/b.py", b"print(1)\\n")], epoch=315532800)
True
"""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.resources import files

import jinja2

ZIP_EPOCH = 315532800  # 1980-01-01 00:00 UTC: the earliest time a zip can record
README = "README.md"
README_TEMPLATE = "programs_readme.md.jinja"  # the README's words, both languages (Jinja)
_FILE_MODE = 0o100644  # a regular file, rw-r--r--
_UNIX = 3  # the "made by" system of every member: Unix, whatever machine builds it


def zip_bytes(members: Iterable[tuple[str, bytes]], epoch: int) -> bytes:
    """A zip of ``members`` (name, content), sorted by name, every member dated ``epoch`` (UTC)."""
    stamp = time.gmtime(max(epoch, ZIP_EPOCH))[:6]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, content in sorted(members):
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = _FILE_MODE << 16
            info.create_system = _UNIX
            archive.writestr(info, content, compresslevel=9)
    return out.getvalue()


@dataclass(frozen=True)
class ProgramFolder:
    """One page's folder of programs in the archive, with the page's title in each language."""

    folder: str  # docs_src/worked-example/
    titles: Mapping[str, str]  # {lang: the page's title}
    programs: tuple[str, ...]  # the programs' file names, sorted


def readme(*, folder: str, wheel: str, requires: Iterable[str], python: str, pages: Iterable[ProgramFolder],
           notebooks: Mapping[str, str], results: str, example: str) -> str:
    """The archive's README.md (in Chinese, then English): what it holds and how to run it.

    ``folder`` is the archive's top folder, ``wheel`` the wheel's file name, ``requires`` what it depends
    on, ``python`` the oldest Python it installs on, ``notebooks`` the notebooks' names by language,
    ``results`` the folder of the records the programs read and ``example`` the program the instructions run."""
    template = files("qkv_site.downloads").joinpath(README_TEMPLATE).read_text(encoding="utf-8")
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True,
                                     trim_blocks=True, lstrip_blocks=True)
    return environment.from_string(template).render(folder=folder, wheel=wheel, requires=list(requires), python=python,
                                                    pages=list(pages), notebooks=dict(notebooks), results=results,
                                                    example=example)
