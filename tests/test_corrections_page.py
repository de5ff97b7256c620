"""The page “勘误与编者注 / Corrections and editor's notes” lists the notes the pages carry now: a note
added to another page appears at the next build, cached or not, and in the same `mkdocs serve`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import DOCS, ROOT

from qkv_site.pages import corrections
from qkv_site.project import Project, load_project


def _copy_of_the_project(folder: Path) -> Project:
    """The pages and the configuration, copied into ``folder``, loaded as the build there would."""
    shutil.copytree(DOCS, folder / "docs", ignore=shutil.ignore_patterns("*.ipynb", "figures"))
    for checked in ("overrides", "docs_src"):  # the theme's custom_dir and a watched folder: the configuration checks them
        shutil.copytree(ROOT / checked, folder / checked)
    shutil.copy(ROOT / "mkdocs.yml", folder / "mkdocs.yml")
    return load_project(folder / "mkdocs.yml")


def test_a_new_note_on_another_page_appears_in_the_list_without_a_fresh_process(tmp_path: Path) -> None:
    project = _copy_of_the_project(tmp_path)  # read from the copy's pages, wherever the process runs
    before = corrections.values(project)["notes"]
    for lang, title in (("zh", "编者注：新的一条"), ("en", "Editor's note: a new one")):
        page = tmp_path / "docs" / lang / "glossary.md"
        page.write_text(page.read_text(encoding="utf-8") + f'\n<a id="note-new"></a>\n\n!!! note "{title}"\n\n    Text.\n',
                        encoding="utf-8")
    after = corrections.values(project)["notes"]  # the same process, as `mkdocs serve` rebuilds
    for lang in ("zh", "en"):
        new = [note for note in after[lang] if note not in before[lang]]
        assert [(note.page, note.anchor) for note in new] == [("glossary.md", "note-new")], lang


def test_pages_without_notes_stop_the_list(tmp_path: Path) -> None:
    (tmp_path / "docs" / "zh").mkdir(parents=True)
    (tmp_path / "docs" / "zh" / "index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: notes\nnav:\n  - index.md\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no editor's note found"):
        corrections.notes("zh", load_project(tmp_path / "mkdocs.yml"))


def test_the_plugin_renders_the_list_at_every_build_whatever_its_block_cache_holds(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from qkv_site.builder.plugin import SitePlugin

    plugin = SitePlugin()
    plugin.project = _copy_of_the_project(tmp_path)  # as on_config makes it from the copy's configuration
    plugin.cache = tmp_path / ".cache"
    plugin.runner = SimpleNamespace(start_page=lambda src_uri: None)  # the page has no code block to run or cache
    source = (tmp_path / "docs" / "zh" / "corrections.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    page = SimpleNamespace(meta={"values": "corrections"}, file=SimpleNamespace(src_uri="zh/corrections.md"), url="corrections/")

    def build() -> str:
        return plugin.on_page_markdown(source, page=page, config={"docs_dir": str(tmp_path / "docs"), "repo_url": None, "repo_name": None}, files=None)

    assert "note-new" not in build()
    glossary = tmp_path / "docs" / "zh" / "glossary.md"
    note = '\n<a id="note-new"></a>\n\n!!! note "编者注：一条新的"\n\n    正文。\n'
    glossary.write_text(glossary.read_text(encoding="utf-8") + note, encoding="utf-8")
    assert "| [一条新的](glossary.md#note-new) | [术语表](glossary.md) |" in build()
