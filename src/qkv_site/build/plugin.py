"""The site's MkDocs plugin (`qkv-site` in mkdocs.yml): the build glue, its events in pipeline order.

MkDocs runs each event for every plugin by priority (higher first; 0 by default, then in the order
of `plugins:`). `qkv-site` is listed after the plugins it works with, so at equal priority it runs
after them. Its state lives on the instance; it defines `on_startup`, so `mkdocs serve` keeps the
same instance across rebuilds (MkDocs ≥ 1.4). Every reach into another package's internals is in
`qkv_site.build.compat`, checked when the build starts.

| event | priority | what, and why that priority |
| --- | --- | --- |
| on_startup | 0 | check the internals of other packages this build relies on (`compat.check`) |
| on_config | 0 | cache folders for markdown-exec blocks and mkdocs-jupyter; markdown-exec runs blocks through `BlockRunner` |
| on_pre_build | -50 | after mkdocs-jupyter's on_pre_build starts a new record of used cache entries: keep both languages' |
| on_files | -110 | after mkdocs-static-i18n's on_files (-100) rebuilt the file list: notebooks become pages again |
| on_page_markdown | 0 | a new page: sessions start empty, named values filled in, notice on an outdated translation |
| on_page_content | 0 | glossary tooltips, before the formula hook (-100) marks formulas in the same HTML |
| on_page_context | 0 | a page without a description fails the strict build |
| on_env | 0 | Jinja templates compiled once, kept as bytecode in `.cache/jinja` |
| on_post_build | 0 | the build finished: outputs no page asked for may go |
| on_shutdown | 0 | delete those outputs (only after a finished build: a failed one asked for few, not none) |
"""

from __future__ import annotations

import logging
from importlib import import_module
from pathlib import Path
from typing import Any

import jinja2
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from qkv_site.build import compat, page_values
from qkv_site.build.block_runs import BlockRunner
from qkv_site.build.descriptions import description
from qkv_site.build.notebooks import NotebookPages, cache_folder, merge_printed_output
from qkv_site.build.translation_notice import with_notice
from qkv_site.tooltips import add_tooltips

log = logging.getLogger("mkdocs.plugins.qkv_site")

CACHE = ".cache"  # beside mkdocs.yml; deleting it is always safe
LANGUAGES = ("zh", "en")


class SiteConfig(Config):  # type: ignore[no-untyped-call]  # MkDocs' __init_subclass__ has no types
    """The plugin has no options."""


class SitePlugin(BasePlugin[SiteConfig]):  # type: ignore[no-untyped-call]  # MkDocs' __init_subclass__ has no types
    def __init__(self) -> None:
        self.runner: BlockRunner | None = None
        self.cache = Path(CACHE)  # set from the configuration's folder in on_config
        self.notebooks = NotebookPages()
        self.built = False

    def on_startup(self, *, command: str, dirty: bool) -> None:
        compat.check()
        merge_printed_output()

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        cache = self.cache = Path(config.config_file_path).resolve().parent / CACHE
        module = import_module(compat.MARKDOWN_EXEC_RUN.module)
        if self.runner is None:  # once per instance: a rebuild under `mkdocs serve` keeps the same runner
            run = compat.MARKDOWN_EXEC_RUN.resolve()
            run = run.run if isinstance(run, BlockRunner) else run  # another instance's, in the same process
            self.runner = BlockRunner(run, cache / "markdown-exec")
        setattr(module, compat.MARKDOWN_EXEC_RUN.attribute, self.runner)
        jupyter = config.plugins.get("mkdocs-jupyter")  # a site without notebooks (a test's) has none
        if jupyter is not None:
            jupyter.config["cache_dir"] = str(cache_folder(cache / "mkdocs-jupyter"))
        self.built = False
        return config

    @event_priority(-50)
    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is not None:
            compat.check_jupyter(jupyter)
            self.notebooks.keep_both_languages(jupyter)

    @event_priority(-110)
    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        jupyter = config.plugins.get("mkdocs-jupyter")
        return files if jupyter is None else self.notebooks.render(files, config, jupyter)

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        assert self.runner is not None
        self.runner.start_page(page.file.src_uri)
        compat.MARKDOWN_EXEC_SESSIONS.resolve().clear()  # no page sees another page's variables
        markdown = page_values.render(markdown, page.meta, page.file.src_uri, self.cache / "page-values")
        return with_notice(markdown, page.file.src_uri, page.url, Path(config["docs_dir"]))

    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        lang = page.file.src_uri.split("/", 1)[0]
        return add_tooltips(html, lang) if lang in LANGUAGES else html

    def on_page_context(self, context: Any, *, page: Page, config: MkDocsConfig, nav: Any) -> Any:
        found, missing = description(page.meta, page.file.src_uri, page.file.abs_src_path or "")
        page.meta["description"] = found
        if missing:
            log.warning(missing)
        return context

    def on_env(self, env: jinja2.Environment, *, config: MkDocsConfig, files: Files) -> jinja2.Environment:
        folder = Path(config.config_file_path).resolve().parent / CACHE / "jinja"
        folder.mkdir(parents=True, exist_ok=True)
        env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))
        return env

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        self.built = True  # every page of this pass was rendered

    def on_shutdown(self) -> None:
        if self.built and self.runner is not None:
            removed = self.runner.evict_unused()
            if removed:
                log.info(f"build cache: removed {removed} outputs of code blocks no page has any more")
