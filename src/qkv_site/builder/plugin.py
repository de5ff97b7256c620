"""The site's MkDocs plugin (`qkv-site` in mkdocs.yml): the build glue, its events in pipeline order.

MkDocs runs each event for every plugin by priority (higher first; 0 by default, then in the order
of `plugins:`). `qkv-site` is listed after the plugins it works with, so at equal priority it runs
after them. Its state lives on the instance; it defines `on_startup`, so `mkdocs serve` keeps the
same instance across rebuilds (MkDocs ≥ 1.4). The project's paths (`qkv_site.project.Project`: the docs,
the benchmark results, the sources its figure links point at) are made from the configuration and handed
to what reads the project's files. mkdocs-static-i18n builds the Chinese site, then the English one inside
its on_post_build (-100): what one language needs of the other's pages is kept as the build goes (the
Chinese pages' texts, read with the Chinese nav, for the English pages' translation notices; every page's
emoji, noted as the page is written, for the font). Every
reach into another package's internals is in `qkv_site.builder.compat`, checked when the build starts.

| event | priority | what, and why that priority |
| --- | --- | --- |
| on_startup | 0 | check the internals of other packages this build relies on (`compat.check`) |
| on_config | 50 | the project's paths (`qkv_site.project`); the jieba dictionary, before Material's search reads it |
| on_config | 0 | caches: markdown-exec blocks run through `BlockRunner`, mkdocs-jupyter's, formulas' |
| on_pre_build | 0 | a language pass starts; the figures drawn into `.cache/figures/` if their code changed (`figures.draw`) |
| on_pre_build | 0 | the build's part of the kept conversions' key (`rendered_pages`: the programs may have been edited) |
| on_pre_build | -50 | after mkdocs-jupyter's on_pre_build starts a new record of used cache entries: keep both languages' |
| on_files | -110 | after mkdocs-static-i18n (-100) rebuilt the file list: notebooks as pages, figures, downloads, sitemap |
| on_nav | -110 | after mkdocs-static-i18n (-100) put the titles in: the nav and its pages' texts (page values, notices) |
| on_pre_page | 0 | a page's conversion from Markdown looked up in `.cache/rendered` first (`rendered_pages`) |
| on_page_markdown | 0 | sessions start empty; named values and figures (`figure_macro`); tests' marks out; translation notice |
| on_page_content | 0 | a notebook's contents from its headings; glossary tooltips |
| on_page_content | -100 | formulas marked with their plain text, after every plugin has written the content |
| on_page_context | 10 | the search view of the page swapped in, before Material's search (0) indexes it |
| on_page_context | 0 | a page without a description fails the strict build |
| on_page_context | -10 | the page's own HTML put back; its nav title and description kept for the search index |
| on_env | 0 | Jinja templates compiled once, kept as bytecode in `.cache/jinja` |
| on_post_template | 0 | the 404 page of a language other than the default one into its own folder |
| on_post_page | 0 | formulas typeset; unused notebook styles go; social cards; English search; learned widgets; its emoji noted |
| on_post_build | 0 | own scripts and stylesheets minified; the build finished: outputs no page asked for may go |
| on_post_build | -110 | last pass (see -140), after mkdocs-static-i18n (-100) built the other language: the emoji font |
| on_post_build | -120 | last pass, after mkdocs-static-i18n (-100) wrote the merged index: other names, one index per language |
| on_post_build | -130 | last pass, every page of both languages written: Material's stylesheet trimmed to what they use, linked |
| on_post_build | -140 | a language pass ends: the one that ends last (the first, holding the others) does -110 to -130 once |
| on_build_error | 0 | the MathJax process ends; no language pass goes on |
| on_shutdown | 0 | MathJax ends; outputs no page asked for are deleted (only after a finished build) |
"""

from __future__ import annotations

import logging
from importlib import import_module
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import jinja2
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

from qkv_site import downloads, project
from qkv_site.builder import compat, figures, page_values
from qkv_site.builder.block_runs import BlockRunner
from qkv_site.builder.codeblock_marks import without_codeblock_marks
from qkv_site.builder.descriptions import description
from qkv_site.builder.kept_steps import KeptSteps
from qkv_site.builder.learned_first import with_first_states
from qkv_site.builder.learned_models import write_next_to
from qkv_site.builder.learned_print import with_print_figures
from qkv_site.builder.loaded_nav import site_nav
from qkv_site.builder.material_styles import UsedRuleDropped, trim_site
from qkv_site.builder.minify import minify_published
from qkv_site.builder.notebook_contents import contents
from qkv_site.builder.notebook_styles import used_styles, without_unused_mermaid
from qkv_site.builder.notebooks import NotebookPages, cache_folder, merge_printed_output
from qkv_site.builder.rendered_pages import RenderedPages
from qkv_site.builder.site_files import EmojiFont, error_page_per_language, list_notebooks_in_sitemap
from qkv_site.builder.social_card import with_card
from qkv_site.builder.tooltips import add_tooltips
from qkv_site.formulas.build import PageFormulas
from qkv_site.search.index import SearchPages, SearchViews, configure, point_english_page_at_its_index, split_index
from qkv_site.site_nav import SiteNav
from qkv_site.translations.notice import with_notice
from qkv_site.translations.records import SOURCE_LANG

log = logging.getLogger("mkdocs.plugins.qkv_site")

CACHE = project.CACHE_DIR  # beside mkdocs.yml; deleting it is always safe


class SiteConfig(Config):  # type: ignore[no-untyped-call]  # MkDocs' __init_subclass__ has no types
    """The plugin's options: where the project's files are, relative to mkdocs.yml (`qkv_site.project`)."""

    results_dir = config_options.Type(str, default=project.RESULTS_DIR)  # the committed benchmark results
    src_dir = config_options.Type(str, default=project.SRC_DIR)  # the packages' sources, for repository links


class SitePlugin(BasePlugin[SiteConfig]):  # type: ignore[no-untyped-call]  # MkDocs' __init_subclass__ has no types
    def __init__(self) -> None:
        self.runner: BlockRunner | None = None
        self.cache = Path(CACHE)  # set from the configuration's folder in on_config
        self.notebooks = NotebookPages()
        self.emoji = EmojiFont()  # its cache is set in on_config, with the project's
        self.originals: dict[str, str] = {}  # the Chinese Markdown pages' text as read, by path in their folder
        self.formulas: PageFormulas | None = None
        self.search: SearchViews | None = None
        self.search_pages = SearchPages()  # of both languages' builds
        self.page_html: str | None = None  # a page's HTML while Material's search reads its search view
        self.built = False
        self.project: project.Project | None = None  # made from the configuration in on_config
        self.nav: SiteNav | None = None  # the nav of the language being built, made in on_nav
        self.rendered: RenderedPages | None = None  # the kept conversions of pages, made in on_config
        self.kept: KeptSteps | None = None  # what the steps below made of each page, kept (`kept_steps`)
        self.passes = 0  # language passes under way: mkdocs-static-i18n runs the others inside the first's

    def on_startup(self, *, command: str, dirty: bool) -> None:
        compat.check()
        merge_printed_output()

    @event_priority(50)
    def _configure_search(self, config: MkDocsConfig) -> MkDocsConfig:
        self.project = project.from_config(config)
        self.cache = self.project.root / CACHE
        self.emoji.cache = self.cache / "emoji-font"
        if "search" in config.plugins or "material/search" in config.plugins:  # a test's small site may have none
            self.search = configure(config, self.cache, self.project)
        return config

    def _configure(self, config: MkDocsConfig) -> MkDocsConfig:
        cache = self.cache
        assert self.project is not None
        if self.formulas is None:  # one MathJax process for the life of the process (serve rebuilds reuse it)
            self.formulas = PageFormulas(cache)
        self.formulas.start_build()
        module = import_module(compat.MARKDOWN_EXEC_RUN.module)
        if self.runner is None:  # once per instance: a rebuild under `mkdocs serve` keeps the same runner
            run = compat.MARKDOWN_EXEC_RUN.resolve()
            run = run.run if isinstance(run, BlockRunner) else run  # another instance's, in the same process
            self.runner = BlockRunner(run, cache / "markdown-exec", self.project)
        setattr(module, compat.MARKDOWN_EXEC_RUN.attribute, self.runner)
        jupyter = config.plugins.get("mkdocs-jupyter")  # a site without notebooks (a test's) has none
        if jupyter is not None:
            jupyter.config["cache_dir"] = str(cache_folder(cache / "mkdocs-jupyter", self.project))
        if self.rendered is None:
            self.rendered = RenderedPages(cache / "rendered")
            self.kept = KeptSteps(cache)
        self.built = False
        return config

    on_config = CombinedEvent(_configure_search, _configure)

    def _draw_figures(self, *, config: MkDocsConfig) -> None:
        self.passes += 1
        assert self.project is not None
        figures.draw(self.cache / "figures", self.project)

    def _key_conversions(self, *, config: MkDocsConfig) -> None:
        assert self.rendered is not None and self.project is not None and self.runner is not None
        self.rendered.start_build(config, self.project, self.runner)

    @event_priority(-50)
    def _keep_notebooks(self, *, config: MkDocsConfig) -> None:
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is not None:
            compat.check_jupyter(jupyter)
            self.notebooks.keep_both_languages(jupyter)

    on_pre_build = CombinedEvent(_draw_figures, _key_conversions, _keep_notebooks)

    def on_pre_page(self, page: Page, *, config: MkDocsConfig, files: Files) -> Page:
        assert self.rendered is not None
        self.rendered.keep_renders(page)
        return page

    @event_priority(-110)
    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is not None:
            files = self.notebooks.render(files, config, jupyter)
        assert self.project is not None
        for figure in figures.generated_files(config, self.cache / "figures", self.project):
            files.append(figure)
        assert self.project is not None
        if self.project.programs_dir is not None:  # qkv's wheel and the programs' archive (qkv_site.downloads)
            for download in downloads.site_files(config, downloads.made(self.project)):
                files.append(download)
        list_notebooks_in_sitemap(files, config)
        return files

    @event_priority(-110)
    def on_nav(self, nav: Navigation, *, config: MkDocsConfig, files: Files) -> Navigation:
        assert self.project is not None
        self.nav = site_nav(nav, self.project.languages)
        if self.nav is not None and self.nav.lang == SOURCE_LANG:
            self.originals = dict(self.nav.sources)  # whole, front matter included: the notices compare their sections
        return nav

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        assert self.runner is not None and self.project is not None
        self.runner.start_page(page.file.src_uri)
        compat.MARKDOWN_EXEC_SESSIONS.resolve().clear()  # no page sees another page's variables
        site = {"repo_url": config["repo_url"], "repo_name": config["repo_name"]}
        lang = page.file.src_uri.split("/", 1)[0]
        functions = {}
        if lang in self.project.languages:
            figures_dir = self.cache / "figures" / lang / "figures"
            functions["figure"] = figures.figure_macro(lang, config["repo_url"], self.project, figures_dir)
        markdown = page_values.render(markdown, page.meta, page.file.src_uri, self.project, self.cache / "page-values",
                                      site, functions, self.nav, self.cache / "page-templates")
        markdown = without_codeblock_marks(markdown)  # the tests' marks are not the reader's
        try:  # the front matter, with the English page's record, is in page.meta
            return with_notice(markdown, page.file.src_uri, page.url, page.meta, self.originals)
        except LookupError as error:
            raise PluginError(str(error)) from error

    def _notebook_contents(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        if page.file.src_uri.endswith(".ipynb") and not page.toc:  # mkdocs-jupyter reads Markdown headings only
            assert self.kept is not None
            page.toc = self.kept.contents.get(page.file.src_uri, html, contents)
        return html

    def _tooltips(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        lang = page.file.src_uri.split("/", 1)[0]
        assert self.project is not None
        if lang not in self.project.languages:
            return html
        assert self.kept is not None
        return self.kept.tooltips.get(page.file.src_uri, html, lambda html: add_tooltips(html, lang))

    @event_priority(-100)
    def _mark_formulas(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        assert self.formulas is not None
        return self.formulas.mark(html, page)

    on_page_content = CombinedEvent(_notebook_contents, _tooltips, _mark_formulas)

    @event_priority(10)
    def _show_search_view(self, context: Any, *, page: Page, config: MkDocsConfig, nav: Any) -> Any:
        self.page_html = page.content
        if self.search is not None:
            page.content = self.search.view(page.content or "")
        return context

    def _description(self, context: Any, *, page: Page, config: MkDocsConfig, nav: Any) -> Any:
        found, missing = description(page.meta, page.file.src_uri, page.file.abs_src_path or "")
        page.meta["description"] = found
        if missing:
            log.warning(missing)
        return context

    @event_priority(-10)
    def _restore_page_html(self, context: Any, *, page: Page, config: MkDocsConfig, nav: Any) -> Any:
        page.content = self.page_html
        if self.search is not None:  # its nav title and description, for the search index's other names
            self.search_pages.record(page.file.src_uri, page.url, str(page.title or ""), str(page.meta.get("description", "")))
        return context

    on_page_context = CombinedEvent(_show_search_view, _description, _restore_page_html)

    def on_env(self, env: jinja2.Environment, *, config: MkDocsConfig, files: Files) -> jinja2.Environment:
        folder = Path(config.config_file_path).resolve().parent / CACHE / "jinja"
        folder.mkdir(parents=True, exist_ok=True)
        env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))
        return env

    def on_post_template(self, output_content: str, *, template_name: str, config: MkDocsConfig) -> str:
        return error_page_per_language(output_content, template_name, config)

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        assert self.formulas is not None and self.kept is not None
        output = self.kept.formulas.get(page.file.src_uri, output, self.formulas.finish)
        if page.file.src_uri.endswith(".ipynb"):
            output = self.kept.notebook_styles.get(page.file.src_uri, without_unused_mermaid(output), used_styles)
        output = with_card(output, page, config, self.cache)
        assert self.project is not None
        page_file = Path(config.site_dir) / page.file.dest_uri
        write_next_to(output, page_file, self.project.results_dir)
        lang = page.file.src_uri.split("/", 1)[0]
        address = urljoin(config["site_url"], page.url) if config["site_url"] else None
        output = with_print_figures(output, page_file, self.project.results_dir, lang, address)
        output = with_first_states(output, self.project.results_dir)
        output = point_english_page_at_its_index(output, page.file.src_uri)
        # For the emoji font: the page as written (a notebook's from the HTML mkdocs-jupyter made of it, its
        # outputs included, once the styles of JupyterLab's icons it does not use are gone)
        self.emoji.note(page.file.src_uri, output)
        return output

    def _finished(self, *, config: MkDocsConfig) -> None:
        assert self.formulas is not None
        minify_published(Path(config["docs_dir"]), Path(config["site_dir"]))
        log.info(self.formulas.summary())
        assert self.rendered is not None
        log.info(self.rendered.summary())
        self.built = True  # every page of this pass was rendered

    def _last_pass(self) -> bool:
        """Whether the pass ending now is the outermost one: mkdocs-static-i18n (-100) has built the other
        languages inside it, and every page of every language is written (what follows is done once, here)."""
        return self.passes == 1

    @event_priority(-110)
    def _write_emoji_font(self, *, config: MkDocsConfig) -> None:
        # every page of both languages has been noted
        if self._last_pass():
            self.emoji.write(config)

    @event_priority(-120)
    def _split_search_index(self, *, config: MkDocsConfig) -> None:
        if self.search is not None and self._last_pass():
            split_index(Path(config.site_dir), list(self.search_pages.pages.values()))

    @event_priority(-130)
    def _trim_material_styles(self, *, config: MkDocsConfig) -> None:
        # mkdocs-static-i18n builds the other language inside the default one's on_post_build (-100): this runs
        # after each, the last time with both languages' pages and the merged search index in place
        if config.theme.name != "material" or not self._last_pass():
            return  # a site on another theme (the tests' small sites on MkDocs' own) has no Material stylesheet
        try:
            trim = trim_site(Path(config.site_dir), self.cache / "material-styles")
        except (compat.StylesheetLinkMissing, UsedRuleDropped) as error:
            raise PluginError(str(error)) from error
        log.info(f"Material's stylesheet: {trim.before} bytes, trimmed to the rules the site uses {trim.after} "
                 f"({trim.name}, linked by {trim.pages} pages)")

    @event_priority(-140)
    def _pass_ended(self, *, config: MkDocsConfig) -> None:
        self.passes -= 1

    on_post_build = CombinedEvent(_finished, _write_emoji_font, _split_search_index, _trim_material_styles, _pass_ended)

    def on_build_error(self, *, error: Exception) -> None:
        self.passes = 0  # the build stopped: no pass goes on
        if self.formulas is not None:
            self.formulas.close()

    def on_shutdown(self) -> None:
        # Once, after every language has been built (mkdocs-static-i18n runs one build per language),
        # or when `mkdocs serve` stops: the one MathJax process of the build ends here.
        if self.formulas is not None:
            self.formulas.close()
        if self.built and self.runner is not None:
            removed = self.runner.evict_unused()
            if removed:
                log.info(f"build cache: removed {removed} outputs of code blocks no page has any more")
