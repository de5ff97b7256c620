"""A page's Markdown converted to HTML once, and kept for the rebuilds in which nothing it reads has changed.

MkDocs converts each page (its Markdown after every plugin's ``on_page_markdown``: values filled in,
figures written) with the configured extensions; markdown-exec runs the page's `python exec` blocks
inside that conversion. `RenderedPages.render` stands in for a page's ``render``: it looks the page up
under the digest of everything the conversion reads, and on a hit hands MkDocs what the conversion made
(the HTML, the table of contents, the title of the first heading, the anchors the page has and those
of other pages it links to, which MkDocs checks after every page is rendered, as it does for a page
converted again). The key:

- the build's: the configuration file and the settings the deploy environment gives it (site and
  repository addresses), the versions of MkDocs, Python-Markdown, pymdown-extensions, Pygments and
  markdown-exec, the inputs of the code the blocks run (`qkv_site.builder.block_cache.process_digest`:
  qkv and qkv_site, the committed results, the machine's arithmetic) and the programs the pages
  include (pymdownx.snippets' folder, read again at every build);
- the page's: its Markdown, its path and address, and every file of the site with its address (links
  are resolved and checked against them).

A conversion that logged a warning is not kept, so a strict build meets the warning again. A page
whose blocks came from the block cache keeps those entries in use (`BlockRunner`), as converting it
would. Notebooks are rendered by mkdocs-jupyter (its own cache) and are left to it.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from qkv_site.builder.block_cache import process_digest
from qkv_site.builder.block_runs import BlockRunner
from qkv_site.builder.compat import PAGE_RENDER_ATTRIBUTES
from qkv_site.cache_files import atomic_write, files_digest, sweep
from qkv_site.project import Project

LIBRARIES = ("mkdocs", "markdown", "pymdown-extensions", "pygments", "markdown-exec")
SETTINGS = ("site_url", "repo_url", "repo_name", "use_directory_urls", "docs_dir")  # what the environment may change
Render = Callable[[MkDocsConfig, Files], None]


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


class RenderedPages:
    """The kept conversions of one build folder (``.cache/rendered``), under the build's digest."""

    def __init__(self, cache: Path) -> None:
        self.cache = cache
        self.folder: Path | None = None  # this build's entries, set by `start_build`
        self.runner: BlockRunner | None = None
        self.reused = self.converted = 0

    def start_build(self, config: MkDocsConfig, project: Project, runner: BlockRunner) -> None:
        """Take the build's part of the key (once per build: the programs may have been edited under `mkdocs serve`)."""
        made_from = [(f"config/{Path(config.config_file_path).name}", Path(config.config_file_path))]
        if project.programs_dir is not None:
            made_from += [(f"programs/{path.relative_to(project.programs_dir).as_posix()}", path)
                          for path in sorted(project.programs_dir.rglob("*")) if path.is_file()]
        settings = [f"{name}={config[name]!r}" for name in SETTINGS]
        digest = files_digest(made_from, LIBRARIES, [process_digest(project), *settings])
        self.folder = self.cache / digest[:16]
        sweep(self.cache, keep=self.folder)
        self.runner = runner
        self.reused = self.converted = 0

    def keep_renders(self, page: Page) -> None:
        """Make ``page``'s ``render`` look in the kept conversions first (not for a notebook: mkdocs-jupyter's)."""
        if page.file.src_uri.endswith(".ipynb") or self.folder is None:
            return
        convert: Render = page.render

        def render(config: MkDocsConfig, files: Files) -> None:
            self.render(page, config, files, convert)

        page.render = render  # type: ignore[method-assign]

    def _entry(self, page: Page, files: Files) -> Path:
        assert self.folder is not None and page.markdown is not None
        h = hashlib.sha256()
        for file in sorted(files, key=lambda file: file.src_uri):
            h.update(f"{file.src_uri}\0{file.dest_uri}\0{file.url}\0".encode())
        h.update(f"{page.file.src_uri}\0{page.file.dest_uri}\0{page.url}\0".encode())
        h.update(page.markdown.encode())
        return self.folder / page.file.src_uri.replace("/", "__") / f"{h.hexdigest()[:32]}.pickle"

    def render(self, page: Page, config: MkDocsConfig, files: Files, convert: Render) -> None:
        assert self.runner is not None
        entry = self._entry(page, files)
        if entry.is_file() and _restore(page, pickle.loads(entry.read_bytes()), files, self.runner):
            self.reused += 1
            return
        warnings, before = _Warnings(), self.runner.used()
        logging.getLogger().addHandler(warnings)
        try:
            convert(config, files)
        finally:
            logging.getLogger().removeHandler(warnings)
        self.converted += 1
        if warnings.count == 0:
            for older in entry.parent.glob("*.pickle"):  # the page's conversion before it changed
                older.unlink(missing_ok=True)
            atomic_write(entry, pickle.dumps(_kept(page, sorted(self.runner.used() - before))))

    def summary(self) -> str:
        return f"pages: {self.converted} converted from Markdown, {self.reused} kept from an earlier build"



def _kept(page: Page, blocks: list[str]) -> dict[str, Any]:
    """What ``page``'s conversion set (`compat.PAGE_RENDER_ATTRIBUTES`), the linked pages by their path."""
    kept = {name: getattr(page, name) for name in PAGE_RENDER_ATTRIBUTES}
    if page.links_to_anchors is not None:
        kept["links_to_anchors"] = {file.src_uri: dict(anchors) for file, anchors in page.links_to_anchors.items()}
    return {"page": kept, "blocks": blocks}


def _restore(page: Page, kept: dict[str, Any], files: Files, runner: BlockRunner) -> bool:
    """Set on ``page`` what its kept conversion set; False (nothing set) if a page it links to is gone."""
    values = dict(kept["page"])
    if values["links_to_anchors"] is not None:
        linked = {files.get_file_from_path(src_uri): anchors for src_uri, anchors in values["links_to_anchors"].items()}
        if None in linked:
            return False
        values["links_to_anchors"] = linked
    for name, value in values.items():
        setattr(page, name, value)
    runner.keep_used(kept["blocks"])
    return True
