"""Write the site's emoji font (qkv_site.emoji_font) with the glyphs of every emoji the pages use.

The pages are read once per process (``mkdocs serve`` rereads them when one changes, through the
hash of their text); the font is made in well under a second and written into the built site only.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from qkv_site.emoji_font import SITE_PATH, emoji_in, font_for, page_sources

_made: dict[str, bytes] = {}


def on_post_build(config, **kwargs) -> None:
    texts = [path.read_text(encoding="utf-8") for path in page_sources(Path(config.docs_dir))]
    chars = emoji_in(texts)
    key = hashlib.sha256("".join(chars).encode()).hexdigest()
    if key not in _made:
        _made[key] = font_for(chars)
    target = Path(config.site_dir) / SITE_PATH
    if not (target.parent.parent / "stylesheets").is_dir():
        return  # mkdocs-static-i18n's build of another language: its pages use the site root's assets
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(_made[key])
