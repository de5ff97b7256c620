"""The page “勘误与编者注 / Corrections and editor's notes” lists the notes the pages carry now: a note
added to another page appears at the next build, cached or not, and in the same `mkdocs serve`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import DOCS, ROOT

from qkv_site.pages import corrections


def test_a_new_note_on_another_page_appears_in_the_list_without_a_fresh_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(DOCS, tmp_path / "docs", ignore=shutil.ignore_patterns("*.ipynb", "figures"))
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    monkeypatch.chdir(tmp_path)  # the build runs from the repository's root
    before = corrections.values()["notes"]
    for lang, title in (("zh", "编者注：新的一条"), ("en", "Editor's note: a new one")):
        page = tmp_path / "docs" / lang / "glossary.md"
        page.write_text(page.read_text(encoding="utf-8") + f'\n<a id="note-new"></a>\n\n!!! note "{title}"\n\n    Text.\n',
                        encoding="utf-8")
    after = corrections.values()["notes"]  # the same process, as `mkdocs serve` rebuilds
    for lang in ("zh", "en"):
        new = [note for note in after[lang] if note not in before[lang]]
        assert [(note.page, note.anchor) for note in new] == [("glossary.md", "note-new")], lang


def test_pages_without_notes_stop_the_list(tmp_path: Path) -> None:
    (tmp_path / "docs" / "zh").mkdir(parents=True)
    (tmp_path / "docs" / "zh" / "index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("nav:\n  - index.md\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no editor's note found"):
        corrections.notes("zh", tmp_path / "docs", tmp_path / "mkdocs.yml")


def test_the_plugin_renders_the_list_at_every_build_whatever_its_block_cache_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from qkv_site.build.plugin import SitePlugin

    shutil.copytree(DOCS, tmp_path / "docs", ignore=shutil.ignore_patterns("*.ipynb", "figures"))
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    monkeypatch.chdir(tmp_path)
    plugin = SitePlugin()
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
