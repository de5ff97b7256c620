"""Run a page's `python exec="on"` blocks through the build cache (qkv_site.build_cache).

markdown-exec runs each block with one function (`compat.MARKDOWN_EXEC_RUN`); `BlockRunner` stands
in for it. A block whose key (the inputs digest, the page, the code before it in its session, its
own code) is in the cache is not run; when a later block of the same session must run, the earlier
ones that came from the cache run first, so its variables are there. Every page starts its
sessions empty, so a page computes the same whether its blocks ran or came from the cache. A block
that reads the pages themselves (the corrections page lists every page's editor's notes) is also
keyed by the text of every page and of mkdocs.yml (its nav orders the pages).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from qkv_site.build_cache import BlockCache, block_cache
from qkv_site.cache_files import files_digest

Run = Callable[..., str]
# Modules whose output depends on the pages' own text, not only on the code that calls them.
READS_PAGES = ("qkv_site.corrections",)


def pages_digest(docs: Path, config_file: Path) -> str:
    """sha256 of every page's source and of the configuration."""
    pages = [(path.relative_to(docs).as_posix(), path) for path in sorted(docs.rglob("*.md"))]
    return files_digest([(config_file.name, config_file), *pages])


class BlockRunner:
    """The block cache of one build process, and the page whose blocks it is running."""

    def __init__(self, run: Run, folder: Path, cache: Callable[[Path], BlockCache] = block_cache,
                 pages: Callable[[], str] | None = None) -> None:
        self.run = run  # markdown-exec's own function
        self.folder = folder
        self.cache = cache
        self.pages = pages  # the digest of the pages' text, for blocks that read it (READS_PAGES)
        self.page: str | None = None
        self.earlier: dict[str, list[str]] = {}  # session -> the code of its blocks so far on this page
        self.ran: dict[str, int] = {}  # session -> how many of those blocks really ran in this process

    def start_page(self, src_uri: str) -> None:
        self.page, self.earlier, self.ran = src_uri, {}, {}

    def __call__(self, code: str, returncode: int | None = None, session: str | None = None, id: str | None = None,
                 **extra: Any) -> str:
        cache = self.cache(self.folder)
        earlier = self.earlier.setdefault(session, []) if session else []
        options = {"returncode": returncode, "id": id, **extra}
        if self.pages is not None and any(module in code for module in READS_PAGES):
            options["pages"] = self.pages()
        key = cache.key(page=self.page or "", session=session, earlier=earlier, code=code, options=options)
        output = cache.load(key)
        if output is None:
            if session:  # bring the session up to this block: run the earlier blocks that came from the cache
                for previous in earlier[self.ran.get(session, 0):]:
                    self.run(previous, session=session, id=id, **extra)
            output = self.run(code, returncode=returncode, session=session, id=id, **extra)
            cache.store(key, output)
            self.ran[session or ""] = len(earlier) + 1
        if session:
            earlier.append(code)
        return output

    def evict_unused(self) -> int:
        """Delete the outputs no page of this build asked for; return how many."""
        return self.cache(self.folder).evict_unused()
