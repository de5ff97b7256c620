"""The emoji of the pages (📌 in the deep dives' titles, ✅ in a table) as a small web font of their own.

A machine without an emoji font (many Linux machines; the deploy workflow's container) draws them as
empty boxes. The site carries the outlines it needs instead: the glyphs of exactly the emoji the pages
use, cut from Noto Emoji (the monochrome one, from the pinned ``manimgx-fonts`` package) at the regular
weight, as a WOFF file of a few kilobytes. The style sheet puts it first in the text and code fonts with
a ``unicode-range`` of the emoji blocks, so a browser uses it for those characters only, and downloads
it only for a page that has one. The PDF edition prefers Noto Color Emoji where it is installed (the
deploy workflow installs it: PDF readers read its glyphs in line with the text) and falls back to this
font (pdf/edition.css).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from pathlib import Path

import manimgx_fonts

SOURCE_FONT = Path(manimgx_fonts.__file__).parent / "NotoEmoji[wght].ttf"
FAMILY = "QKV Emoji"  # the name the style sheets use (docs/assets/stylesheets/extra.css, pdf/edition.css)
SITE_PATH = "assets/fonts/emoji.woff"  # inside the built site
# The blocks the style sheet's unicode-range names: symbols and dingbats (✅), and the emoji planes (📌).
EMOJI = re.compile("[\u2600-\u27bf\U0001f000-\U0001faff]")


def emoji_in(texts: Iterable[str]) -> list[str]:
    """The emoji characters of ``texts``, sorted.

    >>> emoji_in(["# 📌 深入理解", "除以 ✅ 与 √ 和 ×"])
    ['✅', '📌']
    """
    return sorted({char for text in texts for char in EMOJI.findall(text)})


def font_for(chars: Iterable[str]) -> bytes:
    """A WOFF font with the glyphs of ``chars`` only; raises ``ValueError`` naming any it lacks.

    >>> from fontTools.ttLib import TTFont
    >>> sorted(TTFont(io.BytesIO(font_for("📌✅"))).getBestCmap())
    [9989, 128204]
    """
    from fontTools import subset
    from fontTools.ttLib import TTFont
    from fontTools.varLib import instancer

    chars = sorted(set(chars))
    font = TTFont(SOURCE_FONT, recalcTimestamp=False)
    missing = [char for char in chars if ord(char) not in font.getBestCmap()]
    if missing:
        raise ValueError(f"{SOURCE_FONT.name} has no glyph for {', '.join(f'{c} (U+{ord(c):04X})' for c in missing)}")
    options = subset.Options()
    options.flavor = "woff"
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(char) for char in chars])
    subsetter.subset(font)
    font = instancer.instantiateVariableFont(font, {"wght": 400})
    font.flavor = "woff"
    out = io.BytesIO()
    font.save(out, reorderTables=True)
    return out.getvalue()

