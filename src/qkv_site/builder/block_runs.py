"""Run a page's `python exec="on"` blocks through the build cache (qkv_site.builder.block_cache).

markdown-exec runs each block with one function (`compat.MARKDOWN_EXEC_RUN`); `BlockRunner` stands
in for it. A block whose key (the inputs digest, the page, the code before it in its session, its
own code) is in the cache is not run; when a later block of the same session must run, the earlier
ones that came from the cache run first, so its variables are there. Every page starts its
sessions empty, so a page computes the same whether its blocks ran or came from the cache. (What is
made from the pages' own texts, the corrections list, is a page value kept under the digest of those
texts instead: `qkv_site.builder.page_values`.)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from qkv_site.builder.block_cache import BlockCache, block_cache
from qkv_site.project import Project

Run = Callable[..., str]
class BlockRunner:
    """The block cache of one build process, and the page whose blocks it is running."""

    def __init__(self, run: Run, folder: Path, project: Project,
                 cache: Callable[[Path, Project], BlockCache] = block_cache) -> None:
        self.run = run  # markdown-exec's own function
        self.folder = folder
        self.project = project  # whose inputs the cache keys hash
        self.cache = cache
        self.page: str | None = None
        self.earlier: dict[str, list[str]] = {}  # session -> the code of its blocks so far on this page
        self.ran: dict[str, int] = {}  # session -> how many of those blocks really ran in this process

    def start_page(self, src_uri: str) -> None:
        self.page, self.earlier, self.ran = src_uri, {}, {}

    def __call__(self, code: str, returncode: int | None = None, session: str | None = None, id: str | None = None,
                 **extra: Any) -> str:
        cache = self.cache(self.folder, self.project)
        earlier = self.earlier.setdefault(session, []) if session else []
        key = cache.key(page=self.page or "", session=session, earlier=earlier, code=code,
                        options={"returncode": returncode, "id": id, **extra})
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

    def used(self) -> set[str]:
        """The keys of the blocks this process has asked the cache for so far."""
        return set(self.cache(self.folder, self.project).used)

    def keep_used(self, keys: list[str]) -> None:
        """Count ``keys`` as asked for (a page whose conversion was kept uses the outputs it was made with)."""
        self.cache(self.folder, self.project).used.update(keys)

    def evict_unused(self) -> int:
        """Delete the outputs no page of this build asked for; return how many."""
        return self.cache(self.folder, self.project).evict_unused()
