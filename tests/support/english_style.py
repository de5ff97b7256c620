"""The mechanical rules of the English style sheet (english_style.md), checked on the built English pages."""

from __future__ import annotations

import re

# Terms written in lower case except where a sentence starts (capitalised forms are what a
# word-for-word translation of the Chinese pages produces).
LOWER_CASE_TERMS: tuple[str, ...] = (
    "self-attention",
    "cross-attention",
    "multi-head attention",
    "softmax",
    "token",
    "tokens",
    "embedding",
    "embeddings",
    "encoder",
    "encoders",
    "decoder",
    "decoders",
    "decoder-only",
    "causal mask",
    "KV cache",
)

# Spellings that are wrong wherever they appear on an English page, with the right one.
WRONG_SPELLINGS: dict[str, str] = {
    "Flash Attention": "FlashAttention",
    "normaliz": "normalis",
    "optimiz": "optimis",
}

# Query, Key and Value name a token's three roles: capitalised where they are one token's (“its Query”,
# “the Key of “I””, “a token's Value”); lower-case plurals in general statements (“queries and keys”) are fine.
_ROLE = re.compile(r"(?:\b(?i:its|their)(?: own)?|[’']s) (query|key|value)\b|\b(query|key|value) of “")


def lower_case_roles(sentence_text: str) -> list[str]:
    """Query, Key or Value in lower case where it names one token's role.

    >>> lower_case_roles("Its query meets the key of “I”; the Value of “love” and a token's value.")
    ['query', 'key', 'value']
    >>> lower_case_roles("Queries and keys are compared; its Query is the Key of “I”.")
    []
    """
    return [match.group(1) or match.group(2) for match in _ROLE.finditer(sentence_text)]


# Symbols that stand for words and do not belong in a running sentence.
SENTENCE_SYMBOLS = "→←⇒≠"

_SENTENCE_START = re.compile(r"(?:^|[.!?]\s|^\W+)$")
_QUOTED = re.compile(r"“[^”]*”(?:\s*[→←]\s*“[^”]*”)*")  # a quoted label, such as the preset “it” → “animal”


def _title_case(term: str) -> str:
    return " ".join(word[:1].upper() + word[1:] for word in term.split(" ")).replace("-a", "-A").replace("-o", "-O")


def miscapitalised(sentence_text: str) -> list[str]:
    """Terms of `LOWER_CASE_TERMS` capitalised in the middle of a sentence.

    >>> miscapitalised("We use Self-Attention here. Softmax is applied. The KV Cache grows.")
    ['Self-Attention', 'KV Cache']
    >>> miscapitalised("Self-attention and softmax: both fine.")
    []
    """
    found = []
    for term in LOWER_CASE_TERMS:
        wrong_forms = {_title_case(term), term[:1].upper() + term[1:]} - {term}
        for form in wrong_forms:
            for match in re.finditer(rf"(?<![\w-]){re.escape(form)}(?![\w-])", sentence_text):
                if not _SENTENCE_START.search(sentence_text[: match.start()]):
                    found.append(form)
    return sorted(set(found), key=sentence_text.find)


def symbols_in_sentence(sentence_text: str) -> list[str]:
    """Arrows and ≠ in running text, outside quoted words and labels.

    >>> symbols_in_sentence("Q = K → symmetric scores, and A ≠ Aᵀ.")
    ['→', '≠']
    >>> symbols_in_sentence("Translating “I love cats” → into Chinese.")
    ['→']
    >>> symbols_in_sentence("The preset “it” → “animal” loads the sentence.")
    []
    """
    return [symbol for symbol in _QUOTED.sub("", sentence_text) if symbol in SENTENCE_SYMBOLS]


def wrong_spellings(text: str) -> list[str]:
    """Spellings of `WRONG_SPELLINGS` found in `text`.

    >>> wrong_spellings("Flash Attention normalizes the rows.")
    ['Flash Attention', 'normaliz']
    """
    return [wrong for wrong in WRONG_SPELLINGS if wrong in text]
