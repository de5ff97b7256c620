"""The font every figure is laid out with: Noto Sans CJK SC Regular, cut from the variable font of a pip package.

matplotlib measures each label in it; the SVG names the families a reader's system has (`svg_text`)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
from functools import cache
from pathlib import Path
from typing import Any

import fontTools
import manimgx_fonts_cjk
import uharfbuzz

from qkv_site.cache_files import atomic_write

# A collection of five variable fonts (JP, KR, SC, TC, HK) sharing glyphs; each face's cmap picks
# its region's glyph forms, so simplified Chinese needs face 2, not the JP face 0.
SOURCE_FONT = Path(manimgx_fonts_cjk.__file__).parent / "NotoSansCJK-VF.otf.ttc"
SC_FACE = 2
WEIGHT = 400  # Regular. The variable font's default instance is Thin (100), unreadable in a figure.

# matplotlib can open face 2 of the collection, but FreeType then draws its default instance
# (Thin) and matplotlib cannot ask for another one. So HarfBuzz's subsetter pins wght = 400 once
# (about a second; fontTools' instancer took a minute and gave the same figures) and we cache the
# static result. A unique family name keeps a system-wide "Noto Sans CJK SC"
# (different version, different metrics) from being picked instead: the figures must not
# depend on the machine.
FAMILY = "QKV Noto Sans CJK SC"
POSTSCRIPT_NAME = "QKVNotoSansCJKsc-Regular"


def _codepoint_ranges() -> list[tuple[int, int]]:
    return [
        (0x0020, 0x007E),  # ASCII
        (0x00A0, 0x017F),  # Latin-1, Latin Extended-A
        (0x0370, 0x03FF),  # Greek
        (0x2000, 0x206F),  # general punctuation: “ ” ‘ ’ — … ·
        (0x2070, 0x209F),  # super- and subscripts
        (0x2190, 0x21FF),  # arrows
        (0x2200, 0x22FF),  # mathematical operators: − × ÷ √ ≈ ≠
        (0x2460, 0x24FF),  # enclosed numbers ①
        (0x25A0, 0x25FF),  # geometric shapes
        (0x3000, 0x303F),  # CJK punctuation: 、。「」《》
        (0xFF00, 0xFFEF),  # full-width forms: （）：，；！？
    ]


def _gb2312_characters() -> set[int]:
    # GB2312 holds the 6,763 hanzi (and symbols) of everyday simplified Chinese.
    characters = set()
    for high in range(0xA1, 0xF8):
        for low in range(0xA1, 0xFF):
            with contextlib.suppress(UnicodeDecodeError):  # not every pair is a character
                characters.add(ord(bytes((high, low)).decode("gb2312")))
    return characters


@cache  # a frozenset, the same for the life of the process; decoding GB2312 takes about 10 ms
def repertoire() -> frozenset[int]:
    """The code points the static font keeps: GB2312 plus Latin, Greek, punctuation, arrows, math signs.

    A label outside it fails the build with matplotlib's "Glyph … missing" (made an error
    by `registry.render_svg`); add the block here if that ever happens.

    >>> {ord(c) in repertoire() for c in "猫坐在垫子上熵（）：，、√÷→−"}
    {True}
    """
    characters = _gb2312_characters()
    for first, last in _codepoint_ranges():
        characters.update(range(first, last + 1))
    return frozenset(characters)


@cache  # the same for the life of the process; it joins a few thousand code points
def _cache_key() -> str:
    h = hashlib.sha256()
    stat = SOURCE_FONT.stat()
    tools = f"harfbuzz {uharfbuzz.__version__}, fontTools {fontTools.version}"
    h.update(f"{SOURCE_FONT.name}:{stat.st_size}:{SC_FACE}:{WEIGHT}:{FAMILY}:{tools}".encode())
    h.update(",".join(map(str, sorted(repertoire()))).encode())
    return h.hexdigest()[:16]


def _cache_dir() -> Path:
    import matplotlib  # here, not at the top: naming the font (for the social cards' keys) needs no matplotlib

    return Path(os.environ.get("QKV_SITE_FONT_CACHE", Path(matplotlib.get_cachedir()) / "qkv_site"))


def _rename(font: Any, family: str, postscript_name: str) -> None:
    for record in font["name"].names:
        if record.nameID in (1, 16):
            record.string = family
        elif record.nameID in (2, 17):
            record.string = "Regular"
        elif record.nameID == 4:
            record.string = f"{family} Regular"
        elif record.nameID == 6:
            record.string = postscript_name


def _cut_with_harfbuzz() -> bytes:
    # One call does both: keep the repertoire (and every glyph its OpenType features reach, since
    # matplotlib shapes text with HarfBuzz too), then instantiate the outlines at wght = WEIGHT.
    face = uharfbuzz.Face(uharfbuzz.Blob.from_file_path(str(SOURCE_FONT)), SC_FACE)
    plan = uharfbuzz.SubsetInput()
    plan.unicode_set.update(repertoire())
    for kept in (plan.layout_feature_tag_set, plan.name_id_set, plan.name_lang_id_set):
        kept.clear()
        kept.invert()  # the complement of nothing: every feature, every name, every language
    plan.flags = uharfbuzz.SubsetFlags.NOTDEF_OUTLINE
    plan.pin_axis_location(face, "wght", WEIGHT)
    static = uharfbuzz.subset(face, plan)
    if static is None:
        raise RuntimeError(f"HarfBuzz could not cut face {SC_FACE} of {SOURCE_FONT}")
    return bytes(static.blob.data)


def _build_static_font(target: Path) -> None:
    from fontTools.ttLib import TTFont

    font = TTFont(io.BytesIO(_cut_with_harfbuzz()))
    _rename(font, FAMILY, POSTSCRIPT_NAME)  # only the name table is recompiled: fast
    font.recalcTimestamp = False  # same input, same bytes
    saved = io.BytesIO()
    font.save(saved)
    atomic_write(target, saved.getvalue())  # two builds at once: each writes its own file, the last rename wins


def static_font_name() -> str:
    """The static font's file name: it changes with the source font, the repertoire and the tools that cut it."""
    return f"{POSTSCRIPT_NAME}-{_cache_key()}.otf"


def static_font_path() -> Path:
    """Where the static SC Regular font is cached (``$QKV_SITE_FONT_CACHE`` or matplotlib's cache dir)."""
    return _cache_dir() / static_font_name()


def static_font() -> Path:
    """Path of the cached static SC Regular font, building it from `SOURCE_FONT` on first use."""
    target = static_font_path()
    if not target.exists():
        _build_static_font(target)
    return target


@cache
def register() -> str:
    """Add the static font to matplotlib's font manager (once) and return its family name.

    Raises if matplotlib would resolve the family to any other file.
    """
    from matplotlib import font_manager

    path = static_font()
    font_manager.fontManager.addfont(path)
    found = font_manager.findfont(font_manager.FontProperties(family=FAMILY), fallback_to_default=False)
    if Path(found).resolve() != path.resolve():
        raise RuntimeError(f"font family {FAMILY!r} resolves to {found}, expected {path}")
    return FAMILY
