"""The Chinese words search keeps whole: jieba's user dictionary, made from the site's term list.

Material's search plugin cuts the Chinese text of the index into words with jieba when the site is
built, and the browser cuts a query into the longest words the index holds, each searched as a prefix
(so a search for 交叉 finds 交叉注意力, but one for 注意力 does not). A site term goes into jieba's
user dictionary (Material's ``jieba_dict_user`` option) and stays one word, unless jieba cuts it into
other site terms a reader types alone: 因果掩码 stays 因果 / 掩码, so that a search for 掩码 finds it
(and one for 因果掩码 finds the sections holding both). A term jieba would break a one-character
piece off (自注意力 → 自 / 注意力, 多查询注意力 → 多 / 查询 / 注意力) is always kept whole: the piece
would be searched as every word it begins.

The terms are the Chinese names of the glossary's terms and `qkv_site.glossary.SEARCH_WORDS`.
"""

from __future__ import annotations

import logging
import re
from functools import cache
from pathlib import Path
from typing import Any

from qkv_site.cache_files import atomic_write
from qkv_site.glossary import SEARCH_WORDS, TERMS

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")


def site_terms() -> list[str]:
    """Every Chinese term of the site: the Chinese words of the glossary's names, then SEARCH_WORDS."""
    terms: list[str] = []
    for word in [*(han for term in TERMS for han in _HAN.findall(term.zh)), *SEARCH_WORDS]:
        if not _HAN.fullmatch(word):
            raise ValueError(f"a search word must be Chinese characters only, got {word!r}")
        if word not in terms:
            terms.append(word)
    return terms


def quiet_jieba() -> Any:
    """jieba, its progress messages turned off (Material's search plugin cuts the index with the same module)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba


def pieces(word: str) -> list[str]:
    """How jieba, as it is set up now, cuts ``word``."""
    return list(quiet_jieba().cut(word))


def words_to_keep_whole(terms: list[str] | None = None) -> list[str]:
    """The terms jieba's user dictionary must hold (see the module's docstring)."""
    return list(_kept_whole(tuple(site_terms() if terms is None else terms)))


@cache  # loading jieba's dictionary takes 0.6 s: the same terms are cut once per process
def _kept_whole(terms: tuple[str, ...]) -> tuple[str, ...]:
    tokenizer = quiet_jieba().Tokenizer()  # jieba's own dictionary, whatever was added to the default one
    kept = []
    for word in terms:
        pieces = list(tokenizer.cut(word))
        breaks_off_a_character = any(len(piece) == 1 for piece in pieces)
        made_of_other_terms = any(piece != word and piece in terms for piece in pieces)
        if len(word) > 1 and (breaks_off_a_character or not made_of_other_terms):
            kept.append(word)
    return tuple(kept)


def write_user_dictionary(path: Path) -> list[str]:
    """Write jieba's user dictionary (one word a line) to ``path``; returns its words."""
    words = words_to_keep_whole()
    atomic_write(path, "".join(f"{word}\n" for word in words))  # a build running beside reads it whole
    return words
