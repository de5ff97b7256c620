"""The article the Chinese pages carry, and how its text is compared with theirs."""

from __future__ import annotations

import re

from repository import ROOT

SHARED_SEED = ROOT.parent / "shared" / "seed" / "000_f652232f3c03d44b.txt"
KEPT_COPY = ROOT / "tests" / "data" / "article.zh.txt"
TEX_WORD = re.compile(r"\\[A-Za-z]+")


def article_text() -> str:
    text = KEPT_COPY.read_text(encoding="utf-8")
    if SHARED_SEED.exists():
        assert SHARED_SEED.read_text(encoding="utf-8") == text, "tests/data/article.zh.txt is out of date with the article"
    return text


def squeeze(text: str) -> str:
    """Only letters, digits and CJK: quotes, spaces, punctuation and TeX delimiters vary legitimately."""
    return re.sub(r"[^0-9A-Za-z\u4e00-\u9fff]", "", text.replace("ᵀ", "T"))
