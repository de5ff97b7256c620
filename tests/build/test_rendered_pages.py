"""A page's conversion from Markdown is kept for a rebuild in which nothing it reads changed
(qkv_site.builder.rendered_pages); the suite's cached build is also compared with a clean one, page by page
(tests/browser/test_browser.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files, get_files
from mkdocs.structure.pages import Page

from qkv_site.builder import compat
from qkv_site.builder.rendered_pages import RenderedPages
from qkv_site.project import Project


class Runner:
    """What `RenderedPages` asks of the block runner: the blocks used so far, and those a kept page used."""

    def __init__(self) -> None:
        self.keys: set[str] = set()

    def used(self) -> set[str]:
        return set(self.keys)

    def keep_used(self, keys: list[str]) -> None:
        self.keys.update(keys)


def _site(tmp_path: Path, pages: dict[str, str]) -> tuple[MkDocsConfig, Files]:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for name, text in pages.items():
        (docs / name).write_text(text, encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nmarkdown_extensions: [toc]\n", encoding="utf-8")
    config = load_config(str(tmp_path / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    return config, get_files(config)


def _render(kept: RenderedPages, config: MkDocsConfig, files: Files, name: str, converted: list[str]) -> Page:
    file = files.get_file_from_path(name)
    assert file is not None
    page = Page(None, file, config)
    page.read_source(config)
    convert = page.render

    def counted(config: MkDocsConfig, files: Files) -> None:
        converted.append(name)
        convert(config, files)

    page.render = counted  # type: ignore[method-assign]
    kept.keep_renders(page)
    page.render(config, files)
    return page


def test_a_rebuild_takes_the_kept_conversion_of_a_page_that_did_not_change(tmp_path: Path, project: Project) -> None:
    config, files = _site(tmp_path, {"a.md": "# Title\n\n## Part\n\nSee [b](b.md#there).\n", "b.md": "## There\n"})
    converted: list[str] = []
    first = RenderedPages(tmp_path / "cache")
    first.start_build(config, project, Runner())  # type: ignore[arg-type]
    made = _render(first, config, files, "a.md", converted)

    again = RenderedPages(tmp_path / "cache")  # the next build's process
    again.start_build(config, project, Runner())  # type: ignore[arg-type]
    kept = _render(again, config, files, "a.md", converted)
    assert converted == ["a.md"] and again.summary().endswith("1 kept from an earlier build")
    assert kept.content == made.content and str(kept.toc) == str(made.toc) and kept.title == "Title"
    assert kept.present_anchor_ids == made.present_anchor_ids == {"title", "part"}
    assert kept.links_to_anchors == made.links_to_anchors == {files.get_file_from_path("b.md"): {"there": "b.md#there"}}

    (tmp_path / "docs" / "a.md").write_text("# Title\n\nedited\n", encoding="utf-8")  # its Markdown changed
    _render(again, config, files, "a.md", converted)
    config, files = _site(tmp_path, {"c.md": "another page\n"})  # another file of the site
    _render(again, config, files, "a.md", converted)
    assert converted == ["a.md"] * 3


def test_a_conversion_that_warned_is_not_kept(tmp_path: Path, project: Project) -> None:
    config, files = _site(tmp_path, {"a.md": "[gone](missing.md)\n"})
    converted: list[str] = []
    for _ in range(2):
        kept = RenderedPages(tmp_path / "cache")
        kept.start_build(config, project, Runner())  # type: ignore[arg-type]
        _render(kept, config, files, "a.md", converted)
    assert converted == ["a.md", "a.md"]  # a strict build meets the warning each time


def test_a_kept_page_keeps_the_code_block_outputs_it_used(tmp_path: Path, project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    config, files = _site(tmp_path, {"a.md": "text\n"})
    runner = Runner()
    first = RenderedPages(tmp_path / "cache")
    first.start_build(config, project, runner)  # type: ignore[arg-type]
    page = Page(None, files.get_file_from_path("a.md"), config)  # type: ignore[arg-type]
    page.read_source(config)
    convert = page.render

    def with_a_block(config: MkDocsConfig, files: Files) -> None:
        runner.keys.add("block-of-a")  # markdown-exec ran (or read) one block while converting
        convert(config, files)

    page.render = with_a_block  # type: ignore[method-assign]
    first.keep_renders(page)
    page.render(config, files)

    later = Runner()
    again = RenderedPages(tmp_path / "cache")
    again.start_build(config, project, later)  # type: ignore[arg-type]
    _render(again, config, files, "a.md", [])
    assert later.keys == {"block-of-a"}  # not evicted from the block cache at the end of the build


def test_mkdocs_render_sets_what_a_kept_conversion_sets() -> None:
    assert compat.check_page_render() == []
