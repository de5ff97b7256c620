"""The attention math of the article 《Transformer 原理（二）：Self-Attention 深度拆解》, small and exact."""

from __future__ import annotations

from qkv.attention import attention_scores, scaled_dot_product_attention
from qkv.masks import causal_mask
from qkv.projections import cross_attention, project, self_attention
from qkv.softmax import softmax
from qkv.tiled import online_softmax_steps, tiled_attention
from qkv.kv_cache import kv_cache_bytes

# The article's material and deep dives, as qkv.examples, qkv.analysis, qkv.complexity.
from qkv import analysis, complexity, examples
from qkv import kv_cache, tiled

__all__ = [
    "softmax",
    "attention_scores",
    "scaled_dot_product_attention",
    "causal_mask",
    "project",
    "self_attention",
    "cross_attention",
    "analysis",
    "complexity",
    "examples",
    "tiled_attention",
    "online_softmax_steps",
    "kv_cache_bytes",
    "tiled",
    "kv_cache",
]
