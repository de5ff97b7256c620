"""The emoji font holds the glyphs of the emoji the pages of both languages show, noted as they are written."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

import pytest
from fontTools.ttLib import TTFont

from qkv_site.builder.emoji_font import SITE_PATH
from qkv_site.builder import site_files
from qkv_site.builder.site_files import EmojiFont


def glyphs(font_file: Path) -> set[str]:
    return {chr(code) for code in TTFont(font_file).getBestCmap()}


def test_the_font_holds_the_emoji_of_the_written_pages_of_both_languages(tmp_path: Path) -> None:
    font = EmojiFont()
    font.note("zh/why.md", "<h1>📌 深入理解</h1><p>除以 √dₖ，× 不是 emoji。</p>")
    # A notebook is noted from the HTML mkdocs-jupyter made of it: its outputs count, not only its cells.
    font.note("en/notebook.ipynb", '<div class="jp-OutputArea-output"><pre>ok &#x2705;</pre></div>')
    assert font.chars() == ["✅", "📌"]

    english = SimpleNamespace(site_dir=str(tmp_path / "en"))  # the other language's pass: the root's assets serve it
    font.write(english)  # type: ignore[arg-type]
    assert not (tmp_path / "en" / SITE_PATH).exists()

    (tmp_path / "assets" / "stylesheets").mkdir(parents=True)
    root = SimpleNamespace(site_dir=str(tmp_path))
    font.write(root)  # type: ignore[arg-type]
    assert glyphs(tmp_path / SITE_PATH) == {"✅", "📌"}


def test_a_page_rendered_again_brings_only_its_current_emoji(tmp_path: Path) -> None:
    font = EmojiFont()
    font.note("zh/a.md", "<p>📌 ✅</p>")
    font.note("en/a.md", "<p>📌</p>")
    font.note("zh/a.md", "<p>没有了</p>")  # a `mkdocs serve` rebuild of an edited page
    assert font.chars() == ["📌"]
    (tmp_path / "assets" / "stylesheets").mkdir(parents=True)
    font.write(SimpleNamespace(site_dir=str(tmp_path)))  # type: ignore[arg-type]
    assert glyphs(tmp_path / SITE_PATH) == {"📌"}


def test_a_rebuild_with_the_same_emoji_reads_the_font_it_cut_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = EmojiFont(tmp_path / "cache")
    first.note("zh/a.md", "<p>📌 ✅</p>")
    made = first.font()
    assert glyphs_of(made) == {"✅", "📌"}

    def no_cutting(chars: object) -> bytes:
        raise AssertionError("the font was cut again")

    monkeypatch.setattr(site_files, "font_for", no_cutting)
    again = EmojiFont(tmp_path / "cache")  # the next build's process
    again.note("zh/a.md", "<p>📌 ✅</p>")
    assert again.font() == made

    again.note("en/a.md", "<p>🔍</p>")  # another emoji: cut again, the old font goes
    with pytest.raises(AssertionError, match="cut again"):
        again.font()
    monkeypatch.undo()
    assert glyphs_of(again.font()) == {"✅", "📌", "🔍"}
    assert len(list((tmp_path / "cache").iterdir())) == 1


def glyphs_of(font: bytes) -> set[str]:
    return {chr(code) for code in TTFont(io.BytesIO(font)).getBestCmap()}
