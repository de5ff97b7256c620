"""The same site built with nothing to compute: the baseline a cached rebuild is held to.

    .venv/bin/python benchmarks/replay_build.py capture STORE SITE   # build the site, keep what computing made of each page
    .venv/bin/python benchmarks/replay_build.py replay STORE SITE    # MkDocs builds the same pages again, nothing computed

capture: `mkdocs build --strict` of mkdocs.yml (the build cache as it is) with one more plugin, run
after every other one, that keeps in STORE, for every page of both languages, what the plugins and
the Markdown conversion made of it: its HTML and table of contents (after every on_page_content),
and the finished page (after every on_post_page). SITE is the built site.

replay: the same configuration without the three plugins that compute (qkv-site, markdown-exec,
mkdocs-jupyter) and with one that hands MkDocs what capture kept: a page's kept HTML is its render
(no Markdown is converted), its finished page replaces the rendered one, and the files the plugins
wrote after the pages (stylesheets, search indexes, fonts, downloads) are copied from the captured
site. MkDocs, Material and mkdocs-static-i18n do all of their own work on the same pages: the
configuration, the files and the nav of both languages, every page's template, Material's search
index, the sitemap, the theme's and the docs' assets. The replayed site is then compared with the
captured one, file for file: the command fails if they differ.

`site_build.py` times the replay beside a cached rebuild of the site, in turns (its cached-rebuild
ratio); this script only builds.
"""

from __future__ import annotations

import filecmp
import os
import pickle
import shutil
import sys
from pathlib import Path, PurePosixPath
from typing import Any

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils.yaml import yaml_load

ROOT = Path(__file__).resolve().parent.parent
COMPUTING = ("qkv-site", "markdown-exec", "mkdocs-jupyter")  # the plugins whose work is kept and replayed
LAST = -10_000  # after every other plugin's handler of the same event
NOTEBOOK_SUFFIX = ".ipynb"


class Capture(BasePlugin):  # type: ignore[type-arg]
    """Keeps each page's rendered parts and finished output, by the page's path in the site."""

    def __init__(self) -> None:
        super().__init__()
        self.pages: dict[str, dict[str, Any]] = {}

    @event_priority(LAST)
    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        self.pages[page.file.dest_uri] = {
            "content": html,
            "toc": page.toc,
            "title": page._title_from_render,
            "anchors": page.present_anchor_ids,
        }
        return html

    @event_priority(LAST)
    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        self.pages[page.file.dest_uri]["output"] = output
        return output


class Replay(BasePlugin):  # type: ignore[type-arg]
    """Hands MkDocs the kept parts of each page instead of computing them."""

    def __init__(self, pages: dict[str, dict[str, Any]], captured_site: Path) -> None:
        super().__init__()
        self.pages = pages
        self.captured_site = captured_site

    # A notebook is a page of the site, as mkdocs-jupyter makes it: its URL is a Markdown page's before
    # mkdocs-static-i18n (-100) moves each language's files, and it is a page in the moved list.
    def _notebook_urls(self, files: Files, *, config: MkDocsConfig) -> Files:
        assert config.use_directory_urls
        for file in files:
            if file.src_uri.endswith(NOTEBOOK_SUFFIX):
                file.dest_uri = (PurePosixPath(file.src_uri).with_suffix("") / "index.html").as_posix()
                file.url = file._get_url(config.use_directory_urls)
        return files

    @event_priority(-110)
    def _notebook_pages(self, files: Files, *, config: MkDocsConfig) -> Files:
        for file in files:
            if file.src_uri.endswith(NOTEBOOK_SUFFIX):
                file.is_documentation_page = _always  # type: ignore[method-assign]
        return files

    on_files = CombinedEvent(_notebook_urls, _notebook_pages)

    @event_priority(LAST)
    def on_pre_page(self, page: Page, *, config: MkDocsConfig, files: Files) -> Page:
        kept = self.pages[page.file.dest_uri]

        def render(config: MkDocsConfig, files: Files) -> None:
            page.content, page.toc = kept["content"], kept["toc"]
            page._title_from_render, page.present_anchor_ids = kept["title"], kept["anchors"]

        page.render = render  # type: ignore[method-assign]
        return page

    @event_priority(LAST)
    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        return str(self.pages[page.file.dest_uri]["output"])

    def copy_written_after_pages(self, site: Path) -> int:
        """Copy the captured site's files this build did not write the same, and delete those the plugins
        deleted (Material's untrimmed stylesheet); how many files changed."""
        copied = 0
        for written in site.rglob("*"):
            if written.is_file() and not (self.captured_site / written.relative_to(site)).exists():
                written.unlink()
                copied += 1
        for source in self.captured_site.rglob("*"):
            if source.is_dir():
                continue
            target = site / source.relative_to(self.captured_site)
            if not target.exists() or not filecmp.cmp(source, target, shallow=False):
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
                copied += 1
        return copied


def _always() -> bool:
    return True


def _config(site: Path, drop: tuple[str, ...] = ()) -> MkDocsConfig:
    """mkdocs.yml, building into `site`, without the plugins named in `drop`."""
    with open(ROOT / "mkdocs.yml", encoding="utf-8") as source:
        plugins = yaml_load(source)["plugins"]
    kept = [entry for entry in plugins if _plugin_name(entry) not in drop]
    return load_config(str(ROOT / "mkdocs.yml"), site_dir=str(site), strict=True, plugins=kept)


def _plugin_name(entry: str | dict[str, Any]) -> str:
    return entry if isinstance(entry, str) else next(iter(entry))


def _build_with(config: MkDocsConfig, name: str, plugin: BasePlugin) -> None:  # type: ignore[type-arg]
    """`mkdocs build` of ``config`` with ``plugin`` added last, as the command runs it (start-up and shutdown)."""
    config.plugins[name] = plugin
    config.plugins.on_startup(command="build", dirty=False)
    try:
        build(config)
    finally:
        config.plugins.on_shutdown()


def capture(store: Path, site: Path) -> None:
    kept = Capture()
    _build_with(_config(site), "qkv-capture", kept)
    store.write_bytes(pickle.dumps(kept.pages))


def replay(store: Path, site: Path, captured_site: Path) -> None:
    replayed = Replay(pickle.loads(store.read_bytes()), captured_site)
    _build_with(_config(site, drop=COMPUTING), "qkv-replay", replayed)
    replayed.copy_written_after_pages(site)


def compare(captured_site: Path, site: Path) -> list[str]:
    """The files in which the two sites differ (absent from one, or other bytes)."""
    differ = []
    captured = {path.relative_to(captured_site) for path in captured_site.rglob("*") if path.is_file()}
    replayed = {path.relative_to(site) for path in site.rglob("*") if path.is_file()}
    differ += [str(path) for path in sorted(captured ^ replayed)]
    differ += [
        str(path)
        for path in sorted(captured & replayed)
        if not filecmp.cmp(captured_site / path, site / path, shallow=False)
    ]
    return differ


def main(argv: list[str]) -> int:
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    os.chdir(ROOT)
    if len(argv) == 3 and argv[0] == "capture":
        capture(Path(argv[1]), Path(argv[2]))
        return 0
    if len(argv) == 4 and argv[0] == "replay":
        replay(Path(argv[1]), Path(argv[2]), Path(argv[3]))
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
