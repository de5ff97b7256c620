"""Editor's notes on the article's loose claims: each page carries its notes in both languages, each titled as an
editor's note and, but for one about the article's own example, citing a dated source."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from page_sources import built_article
from repository import LANGUAGES

from qkv_site.editors_notes import NOTE_PREFIX

NOTES = {
    "index.md": ["note-self-attention-before-transformer"],
    "motivation.md": ["note-trained-heads"],
    "intuition.md": ["note-soft-search", "note-trainable-parameters"],
    "worked-example.md": ["note-dot-product-length", "note-de-not-in-sentence", "note-dot-product-choice"],
    "why-three-matrices.md": ["note-joint-training", "note-posture-verbs", "note-raw-similarity"],
    "why-sqrt-dk.md": ["note-gradient-region"],
}


UNSOURCED = {"note-de-not-in-sentence"}  # about the article's own example sentence


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("page", list(NOTES))
def test_each_loose_claim_has_its_sourced_note(site: Path, page: str, lang: str) -> None:
    built = built_article(site, page, lang)
    for anchor in NOTES[page]:
        marker = built.select_one(f"#{anchor}")
        assert marker is not None, f"{lang}/{page}: no anchor {anchor}"
        note = marker.find_next(class_="admonition")
        assert note.select_one(".admonition-title").get_text().startswith(NOTE_PREFIX[lang]), f"{lang}/{page}: {anchor}"
        if anchor not in UNSOURCED:
            assert re.search(r"\b(19|20)\d\d\b", note.get_text()), f"{lang}/{page}: {anchor} cites no source"
