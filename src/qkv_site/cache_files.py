"""The build's files in ``.cache/`` and beside it: written whole, named by a digest, stale ones swept.

Every cache of the build uses these three: `atomic_write` (a build running at the same time never reads
half a file), `files_digest` (what a cached result was made from: files by name and content, and the
versions of the libraries that made it) and `sweep` (entries made from other inputs can never be used
again).

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     kept = Path(folder) / "a" / "x.txt"
...     atomic_write(kept, "1")
...     (Path(folder) / "b").mkdir()
...     sweep(Path(folder), keep=Path(folder) / "a")
...     sorted(p.name for p in Path(folder).iterdir()), kept.read_text()
(['a'], '1')
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
from collections.abc import Callable, Iterable
from importlib.metadata import version
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def atomic_write(path: Path, content: bytes | str) -> None:
    """Write ``content`` to ``path`` whole or not at all: aside, then renamed over it (the last rename wins)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if isinstance(content, str):
        partial.write_text(content, encoding="utf-8")
    else:
        partial.write_bytes(content)
    os.replace(partial, path)


def files_digest(files: Iterable[tuple[str, Path]], libraries: Iterable[str] = (), extra: Iterable[str] = ()) -> str:
    """sha256 of files (each under the name it is known by, so a move changes the digest), the installed
    versions of ``libraries`` and any ``extra`` strings.

    >>> len(files_digest([], libraries=["numpy"]))
    64
    """
    h = hashlib.sha256()
    for name, path in files:
        h.update(f"{name}\0".encode())
        h.update(path.read_bytes())
    for library in libraries:
        h.update(f"{library} {version(library)}\0".encode())
    for text in extra:
        h.update(f"{text}\0".encode())
    return h.hexdigest()


def numerics_fingerprint() -> str:
    """What decides the last bits of the floats a build computes on this machine, for the caches' keys.

    The same code and inputs give the same pages on every machine only where the pages decide with
    margins (`qkv_site.values.claims`); a cached result is still one machine's arithmetic, so a
    `.cache/` carried to another machine is not reused there: the OS, CPU architecture and C library
    (its `exp`), numpy's version and the SIMD extensions it dispatches to, and the BLAS numpy loaded
    with its version, kernel ("architecture": Haswell, SkylakeX, …) and thread count.

    >>> "numpy" in numerics_fingerprint()
    True
    """
    import platform

    import numpy as np
    from threadpoolctl import threadpool_info

    from qkv_site.builder.compat import NUMPY_CPU_FEATURES

    simd = sorted(name for name, enabled in NUMPY_CPU_FEATURES.resolve().items() if enabled)
    blas = sorted(f"{info.get('internal_api')} {info.get('version')} {info.get('architecture')} threads {info.get('num_threads')}"
                  for info in threadpool_info() if info.get("user_api") == "blas")
    libc = " ".join(platform.libc_ver())
    return (f"{platform.system()} {platform.machine()} libc {libc}; numpy {np.__version__} simd {','.join(simd)}; "
            f"blas {'; '.join(blas) or 'none found'}")


def python_files(root: Path, name: str) -> list[tuple[str, Path]]:
    """Every ``*.py`` under ``root``, named ``name/relative/path.py``, in a fixed order (for `files_digest`)."""
    return [(f"{name}/{path.relative_to(root).as_posix()}", path) for path in sorted(root.rglob("*.py"))]


def sweep(folder: Path, keep: Path) -> None:
    """Delete everything in ``folder`` but ``keep`` (caches of other inputs), then make sure ``keep`` exists."""
    if folder.is_dir():
        for stale in folder.iterdir():
            if stale != keep:
                shutil.rmtree(stale) if stale.is_dir() else stale.unlink(missing_ok=True)
    keep.mkdir(parents=True, exist_ok=True)


class PageResults:
    """What one step of the build makes of a page's text, kept between builds: each page's latest result, under
    the digest of the text and of the code that makes it (``code``: files by name, ``libraries``: versions).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     made = []
    ...     def shout(text):
    ...         made.append(text)
    ...         return text.upper()
    ...     kept = PageResults(Path(folder), [])
    ...     kept.get("zh/a.md", "hi", shout), PageResults(Path(folder), []).get("zh/a.md", "hi", shout), made
    ('HI', 'HI', ['hi'])
    """

    def __init__(self, folder: Path, code: Iterable[tuple[str, Path]], libraries: Iterable[str] = ()) -> None:
        self.folder = folder / files_digest(code, libraries)[:16]
        self._swept = False

    def get(self, page: str, text: str, make: Callable[[str], T]) -> T:
        """``make(text)`` for the page named ``page``, or what it made of the same text before."""
        if not self._swept:  # the results of other code go, once per process
            sweep(self.folder.parent, keep=self.folder)
            self._swept = True
        entry = self.folder / page.replace("/", "__") / f"{hashlib.sha256(text.encode()).hexdigest()[:32]}.pickle"
        if entry.is_file():
            kept: T = pickle.loads(entry.read_bytes())
            return kept
        made = make(text)
        for older in entry.parent.glob("*.pickle"):  # what the page's earlier text made
            older.unlink(missing_ok=True)
        atomic_write(entry, pickle.dumps(made))
        return made
