"""What a site build may reuse from the last one: code-block output and executed notebooks, keyed by their inputs.

Everything the pages compute comes from `qkv` (and the helpers in `qkv_site`, and the committed
benchmark results), so `inputs_digest` hashes those files; a block's cache key adds its own code
and the code that ran before it in the same session on the same page. Change one character of
`src/qkv` and every key changes: the next build recomputes every number.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     cache = BlockCache(Path(folder), digest="d1")
...     key = cache.key(page="zh/a.md", session="s", earlier=[], code="print(1)", options={})
...     cache.load(key) is None, cache.store(key, "1\\n"), cache.load(key)
(True, None, '1\\n')
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

import qkv
import qkv_site
from qkv_site.cache_files import atomic_write, files_digest, numerics_fingerprint, python_files
from qkv_site.project import Project

# The packages whose code computes the pages, found from the packages themselves (not a project path).
PACKAGES = {"qkv": Path(qkv.__file__).resolve().parent, "qkv_site": Path(qkv_site.__file__).resolve().parent}
# Their versions can change what a page shows.
LIBRARIES = ("numpy", "markdown-exec", "nbclient", "nbconvert", "mkdocs-jupyter", "beautifulsoup4")


def inputs_digest(project: Project, packages: dict[str, Path] = PACKAGES) -> str:
    """sha256 of every file a page's computed content depends on (the packages' code and the project's
    committed benchmark results, `Project.results_dir`), the versions of the libraries and the machine's
    arithmetic (`numerics_fingerprint`: a cache made on another CPU or BLAS kernel is not reused).

    >>> from qkv_site.project import load_project
    >>> len(inputs_digest(load_project(Path("mkdocs.yml"))))
    64
    """
    files = [file for name, folder in packages.items() for file in python_files(folder, name)]
    files += [(f"results/{path.name}", path) for path in sorted(project.results_dir.glob("*.json"))]
    return files_digest(files, LIBRARIES, [numerics_fingerprint()])


class BlockCache:
    """The printed output of `python exec="on"` blocks, one small file per block under ``folder``."""

    def __init__(self, folder: Path, digest: str) -> None:
        self.folder = Path(folder)
        self.digest = digest
        self.used: set[str] = set()

    def key(self, *, page: str, session: str | None, earlier: list[str], code: str, options: dict[str, Any]) -> str:
        """The key of one block: the inputs digest, the page, the session's earlier code on it, the code, the options."""
        payload = json.dumps([self.digest, page, session, earlier, code, options], sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.txt"

    def load(self, key: str) -> str | None:
        """The stored output for ``key``, or None."""
        self.used.add(key)
        try:
            return self._path(key).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def store(self, key: str, output: str) -> None:
        """Keep ``output`` for ``key`` (written whole or not at all)."""
        self.used.add(key)
        atomic_write(self._path(key), output)

    def evict_unused(self) -> int:
        """Delete the stored outputs this process never asked for; return how many."""
        stale = [path for path in self.folder.glob("*.txt") if path.stem not in self.used]
        for path in stale:
            path.unlink(missing_ok=True)
        return len(stale)


@cache
def process_digest(project: Project) -> str:
    """`inputs_digest` of ``project`` as it was when this process first asked: the code it has imported.

    `mkdocs serve` keeps the modules it imported; keying its output by files edited later
    would store old numbers under a new key.
    """
    return inputs_digest(project)


@cache
def block_cache(folder: Path, project: Project) -> BlockCache:
    """The one `BlockCache` of this process for ``folder`` (both language passes share its record of use)."""
    return BlockCache(Path(folder), process_digest(project))
