"""Words for what a heatmap of attention weights shows, written from the weights (its alt text and caption).

A figure's alt text is read instead of the figure: it may say only what the weights drawn in it
show. The sentences here are computed from those weights and checked by `qkv_site.claims`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from qkv.examples import translation_example
from qkv_site.claims import Sentence, choose, claim, listing
from qkv_site.figure_markup import figure

TIE = 1e-9  # weights this close are equally heavy


def brightest(weights: np.ndarray) -> list[list[int]]:
    """For each row (query), the columns (keys) with its largest weight: more than one when they tie."""
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 2 or weights.size == 0:
        raise ValueError(f"weights must be a non-empty 2-D matrix, got shape {weights.shape}")
    return [list(np.flatnonzero(row >= row.max() - TIE)) for row in weights]


def _quoted(token: str) -> str:
    return f"“{token}”"


def rows_sentence(weights: np.ndarray, queries: Sequence[str], keys: Sequence[str], lang: str) -> str:
    """“I” 看得最重的是 “love”，… / “I” weighs “love” most, …: each query's heaviest key(s), from the weights."""
    if np.shape(weights) != (len(queries), len(keys)):
        raise ValueError(f"weights of shape {np.shape(weights)} for {len(queries)} queries and {len(keys)} keys")
    parts = []
    for query, columns in zip(queries, brightest(weights), strict=True):
        heaviest = listing([_quoted(keys[j]) for j in columns], lang)
        if lang == "zh":
            parts.append(f"{_quoted(query)} 看得最重的是 {heaviest}" + ("（一样重）" if len(columns) > 1 else ""))
        else:
            parts.append(f"{_quoted(query)} weighs {heaviest} most" + (", equally" if len(columns) > 1 else ""))
    return "，".join(parts) if lang == "zh" else "; ".join(parts)


def diagonal_sentence(weights: np.ndarray, page: str) -> Sentence:
    """Where the brightest cell of each row of a square heatmap lies, as far as the diagonal goes."""
    rows = brightest(weights)
    on_diagonal = [i in columns for i, columns in enumerate(rows)]
    alone = [columns == [i] for i, columns in enumerate(rows)]
    return choose(
        page,
        (np.shape(weights)[0] == np.shape(weights)[1] and all(alone), "对角线最亮", "brightest along the diagonal"),
        (not any(on_diagonal), "每一行最亮的格子都不在对角线上", "with no row brightest on the diagonal"),
        (True, "有的行最亮的格子在对角线上，有的不在", "with some rows brightest on the diagonal and some not"),
        why=f"the brightest columns of each row: {rows}",
    )


def self_vs_cross_figure(lang: str) -> str:
    """The self-vs-cross figure, its alt text and caption written from the example's weights."""
    page = "self-vs-cross.md"
    example = translation_example()
    source, target = list(example.source_tokens), list(example.target_tokens)
    self_weights, cross_weights = example.encoder.weights, example.cross.weights
    left, right = diagonal_sentence(self_weights, page), diagonal_sentence(cross_weights, page)
    alt = claim(
        True,  # each part is computed from the weights drawn
        page=page,
        zh=f"两张热力图：左边是 “{' '.join(source)}” 的自注意力，{left['zh']}：{rows_sentence(self_weights, source, source, 'zh')}；"
        f"右边是 “{' '.join(target)}” 对 “{' '.join(source)}” 的交叉注意力，{right['zh']}："
        f"{rows_sentence(cross_weights, target, source, 'zh')}",
        en=f"Two heatmaps. On the left, self-attention within “{' '.join(source)}”, {left['en']}: "
        f"{rows_sentence(self_weights, source, source, 'en')}. On the right, cross-attention from “{' '.join(target)}” "
        f"to “{' '.join(source)}”, {right['en']}: {rows_sentence(cross_weights, target, source, 'en')}",
    )
    aligned = all(columns == [i] for i, columns in enumerate(brightest(cross_weights)))
    pairs = {"zh": "，".join(f"{_quoted(t)} 对齐 {_quoted(s)}" for t, s in zip(target, source, strict=False)),
             "en": ", ".join(f"{_quoted(t)} with {_quoted(s)}" if i else f"{_quoted(t)} lines up with {_quoted(s)}"
                             for i, (t, s) in enumerate(zip(target, source, strict=False)))}  # unequal: the claim below fails
    caption = claim(
        aligned and len(target) == len(source),
        page=page,
        zh=f"左：Self-Attention，行和列都是 “{' '.join(source)}”。右：Cross-Attention，行是 Decoder 里的 “{' '.join(target)}”，"
        f"列是 Encoder 里的 “{' '.join(source)}”——看对角线：{pairs['zh']}。示意权重。",
        en=f"Left: self-attention, with “{' '.join(source)}” on both the rows and the columns. Right: cross-attention, "
        f"with “{' '.join(target)}” in the decoder on the rows and “{' '.join(source)}” in the encoder on the columns — "
        f"look at the diagonal: {pairs['en']}. Illustrative weights.",
        why=f"each target word's heaviest source word is the one in its place: {brightest(cross_weights)}",
    )
    return figure("self_vs_cross", lang, alt=alt[lang], caption=caption[lang])
