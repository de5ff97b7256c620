"""Social card images (og:image): each page's card, named by what it shows and kept between builds.

A card's file name is the hash of everything it shows and of the code and font that draw it, so an
unchanged page costs a hash on the next build. Only a card that is not kept yet is drawn, by
`qkv_site.builder.social_card_drawing` (which loads matplotlib: a build whose cards are all kept does not).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from qkv_site.cache_files import atomic_write, files_digest
from qkv_site.figures import fonts

WIDTH, HEIGHT = 1200, 630  # pixels: the size Facebook, LinkedIn and X ask for
DRAWING = Path(__file__).with_name("social_card_drawing.py")


@functools.cache  # one per process: every card of a build is drawn by the same code and font
def _code_digest() -> str:
    return files_digest([(DRAWING.name, DRAWING)], ["matplotlib"], [fonts.static_font_name()])


def card_name(title: str, site_name: str) -> str:
    """The card's file name: a hash of its text and of the code and font that draw it."""
    h = hashlib.sha256(f"{title}\0{site_name}\0{_code_digest()}".encode())
    return f"{h.hexdigest()[:20]}.png"


def card(title: str, site_name: str, folder: Path) -> tuple[str, bytes]:
    """(file name, PNG) of the card for `title`, drawn only when ``folder`` does not hold it yet."""
    name = card_name(title, site_name)
    kept = folder / name
    if kept.exists():
        return name, kept.read_bytes()
    from qkv_site.builder.social_card_drawing import draw_card  # matplotlib: only when a card is drawn

    content = draw_card(title, site_name)
    atomic_write(kept, content)  # two builds at once: both write the same bytes, the last rename wins
    return name, content
