"""Sentences about computed or measured numbers that check themselves when the site is built.

A page that says "tiled attention was slower at every n" or "the peak is about one n×n matrix" says
it through `claim`: the condition that makes the sentence true is computed from the same data the
sentence describes, and the sentence is given in both languages at once. When the data stop
supporting it, `claim` raises `ClaimError` naming the page and the sentence; inside a
``python exec="on"`` block that is a failed block, which stops ``mkdocs build --strict``.

`choose` picks the first of several alternatives whose condition holds (one of them must), and
`listing` joins a list of values for a sentence and refuses an empty one: a sentence is never
printed as "n = none".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

LANGUAGES = ("zh", "en")
_SEPARATOR = {"zh": "、", "en": ", "}
_LAST = {"zh": " 和 ", "en": " and "}


class ClaimError(AssertionError):
    """A sentence of a page that the data it describes no longer support."""


@dataclass(frozen=True)
class Sentence:
    """The same true sentence in Chinese and English."""

    zh: str
    en: str

    def __getitem__(self, lang: str) -> str:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}; choose one of {LANGUAGES}")
        return self.zh if lang == "zh" else self.en


def claim(holds: bool, *, page: str, zh: str, en: str, why: str = "") -> Sentence:
    """The sentence (`zh`, `en`) about numbers on `page`, if `holds`; otherwise `ClaimError`.

    `holds` is the condition computed from the data the sentence describes; `why` says what was
    checked, for the error message.

    >>> claim(3 > 2, page="example.md", zh="3 比 2 大。", en="3 is larger than 2.")["en"]
    '3 is larger than 2.'
    >>> claim(1 > 2, page="example.md", zh="1 比 2 大。", en="1 is larger than 2.", why="1 > 2")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qkv_site.content.claims.ClaimError: example.md: the data no longer support the sentence “1 is larger than 2.” ...
    """
    holds = claim_holds(holds, page, en)
    for lang, text in (("zh", zh), ("en", en)):
        if not text.strip():
            raise ValueError(f"{page}: the {lang} sentence of a claim is empty")
    if not holds:
        checked = f"; checked: {why}" if why else ""
        raise ClaimError(f"{page}: the data no longer support the sentence “{en}” (“{zh}”){checked}")
    return Sentence(zh=zh, en=en)


def claim_holds(holds: object, page: str, en: str) -> bool:
    """`holds` as a bool; anything but a bool (a list, an array, a number) is a mistake in the page's code."""
    if not isinstance(holds, (bool, np.bool_)):  # an array's or a list's truth is not the condition meant
        raise TypeError(f"{page}: the condition of “{en}” must be a bool, not {type(holds).__name__}")
    return bool(holds)


def choose(page: str, *alternatives: tuple[bool, str, str], why: str = "") -> Sentence:
    """The first of `alternatives` (condition, zh, en) whose condition holds.

    The alternatives are the true things a page may say about its data; when none holds the page
    has nothing true to say and `ClaimError` names the page and every alternative.

    >>> choose("example.md", (2 < 1, "更小。", "Smaller."), (2 > 1, "更大。", "Larger."))["zh"]
    '更大。'
    """
    if not alternatives:
        raise ValueError(f"{page}: choose() needs at least one alternative")
    for holds, zh, en in alternatives:
        if claim_holds(holds, page, en):
            return claim(True, page=page, zh=zh, en=en)
    sentences = " / ".join(f"“{en}”" for _, _, en in alternatives)
    checked = f"; checked: {why}" if why else ""
    raise ClaimError(f"{page}: the data support none of the sentences {sentences}{checked}")


def listing(values: Iterable[str], lang: str) -> str:
    """``a、b 和 c`` / ``a, b and c``; an empty list is an error, never the word "none".

    >>> listing(["128", "256", "1,024"], "en"), listing(["128", "256"], "zh")
    ('128, 256 and 1,024', '128 和 256')
    """
    items = list(values)
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; choose one of {LANGUAGES}")
    if not items:
        raise ValueError("an empty list has no place in a sentence: choose a sentence that does not list it")
    if len(items) == 1:
        return items[0]
    return _SEPARATOR[lang].join(items[:-1]) + _LAST[lang] + items[-1]
