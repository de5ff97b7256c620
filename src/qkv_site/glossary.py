"""The bilingual glossary: one list of terms feeds the glossary page and the hover tooltips."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """A term as the glossary lists it (``text``), with its names and meanings in both languages.

    ``section`` is where the site explains it, the same in both languages: a page of the nav and, after
    ``#``, the id of one of its headings (none for the whole page). The glossary links each term there, and
    the search index gives that section the term's names (`qkv_site.search.names`), so that 交叉注意力
    finds the section on Cross-Attention, which never says it in Chinese.

    ``forms`` is the regular expression of the ways a reader meets the term in running text
    (plurals, lower case); ``exact_case`` keeps the match to the capitalised form, for the
    role names Query, Key and Value, whose lower-case forms are ordinary English words
    ("the key idea", "a negative value").
    """

    text: str
    zh: str
    en: str
    zh_meaning: str
    en_meaning: str
    forms: str
    section: str
    exact_case: bool = False


TERMS: tuple[Term, ...] = (
    Term("Query", "查询", "query", "当前词发出的 “提问”：Q = X·W_Q", "What the current token is looking for: Q = X·W_Q", r"Quer(?:y|ies)", "intuition.md#search-engine-analogy", True),
    Term("Key", "键", "key", "每个词的 “身份标签”，用来和 Query 匹配：K = X·W_K", "Each token's label, matched against queries: K = X·W_K", r"Keys?", "intuition.md#search-engine-analogy", True),
    Term("Value", "值", "value", "每个词携带的 “实际内容”，按注意力权重被取走：V = X·W_V", "The content a token hands over, in proportion to its attention weight: V = X·W_V", r"Values?", "intuition.md#search-engine-analogy", True),
    Term("Softmax", "Softmax（归一化指数函数）", "softmax", "把一组分数变成概率分布：先取指数，再除以总和", "Turns a row of scores into a probability distribution: exponentiate, then divide by the sum", r"softmax", "worked-example.md#step-4"),
    Term("Self-Attention", "自注意力", "self-attention", "Q、K、V 都来自同一个序列的注意力", "Attention in which Q, K and V all come from the same sequence", r"self-attention", "motivation.md"),
    Term("Cross-Attention", "交叉注意力", "cross-attention", "Q 来自 Decoder、K 和 V 来自 Encoder 的注意力", "Attention in which Q comes from the decoder and K, V from the encoder", r"cross-attention", "self-vs-cross.md#why-cross-attention"),
    Term("Token", "词元", "token", "模型处理文本的最小单位", "The smallest unit of text a model processes", r"tokens?", "motivation.md"),
    Term("Embedding", "嵌入", "embedding", "把词元映射成的向量", "The vector a token is mapped to", r"embeddings?", "worked-example.md#input"),
    Term("Encoder", "编码器", "encoder", "读入并理解原文的那一半 Transformer", "The half of the Transformer that reads the source text", r"encoders?", "self-vs-cross.md#translation"),
    Term("Decoder", "解码器", "decoder", "逐词生成输出的那一半 Transformer", "The half of the Transformer that writes the output token by token", r"decoders?", "self-vs-cross.md#translation"),
    Term("one-hot", "独热分布", "one-hot", "只有一个位置是 1、其余都是 0 的分布", "A distribution with a single 1 and 0 everywhere else", r"one-hot", "why-sqrt-dk.md#three-strategies"),
    Term("Causal Mask", "因果掩码", "causal mask", "每个词只能看到它自己和它之前的词", "Each token may attend only to itself and the tokens before it", r"causal masks?", "beyond-quadratic.md#causal-skipping"),
    Term("FP16", "半精度浮点数", "half precision", "16 位浮点数，每个数占 2 字节", "16-bit floating point: 2 bytes per number", r"FP16", "complexity.md#complexity-analysis"),
    Term("KV Cache", "KV 缓存", "KV cache", "生成时保存已算过的 K、V，避免重复计算", "The keys and values kept during generation so they are not recomputed", r"KV caches?", "beyond-quadratic.md#kv-cache"),
    Term("MQA", "多查询注意力", "multi-query attention", "所有头共用一组 K/V", "All heads share one set of keys and values", r"MQA", "beyond-quadratic.md#kv-cache"),
    Term("GQA", "分组查询注意力", "grouped-query attention", "每组头共用一组 K/V", "Each group of heads shares one set of keys and values", r"GQA", "beyond-quadratic.md#kv-cache"),
)

# Words a learner types into the search box besides the glossary's Chinese names: with those names,
# the site's Chinese terms (qkv_site.search.words decides which of them jieba must be told to keep whole).
SEARCH_WORDS: tuple[str, ...] = (
    "点积", "缩放", "子空间", "投影", "复杂度", "多头", "掩码", "方差", "在线", "分块", "归一化", "对称", "自己动手",
)

# A term is a whole word: no Latin letter, digit, underscore or hyphen touches it on either side
# (Chinese characters may: the pages put a space there, but the article does not always).
_BEFORE, _AFTER = r"(?<![A-Za-z0-9_-])", r"(?![A-Za-z0-9_-])"


def tooltip(term: Term, lang: str) -> str:
    """The tooltip of `term` on a page in `lang`: its name there, then what it means.

    >>> tooltip(TERMS[0], "en")
    'query — What the current token is looking for: Q = X·W_Q'
    """
    if lang not in ("zh", "en"):
        raise ValueError(f"lang must be 'zh' or 'en', got {lang!r}")
    name, meaning = (term.zh, term.zh_meaning) if lang == "zh" else (term.en, term.en_meaning)
    return f"{name} — {meaning}"


def term_pattern(term: Term) -> re.Pattern[str]:
    """The whole-word pattern of `term` in running text.

    >>> [bool(term_pattern(TERMS[4]).search(text)) for text in ("self-attention is", "Self-Attention 中", "selfattention")]
    [True, True, False]
    >>> [bool(term_pattern(TERMS[1]).search(text)) for text in ("the Key of 猫", "the key idea", "Keyboard")]
    [True, False, False]
    """
    return re.compile(_BEFORE + f"(?:{term.forms})" + _AFTER, 0 if term.exact_case else re.IGNORECASE)
