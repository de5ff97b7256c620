"""The KV cache of a decoder: bytes for the keys and values of every past token, for MHA, GQA and MQA."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qkv._checks import check_positive_int
from qkv.complexity import bytes_per_element, format_bytes


def _check_kv_heads(heads: Any, kv_heads: Any) -> tuple[int, int]:
    heads, kv_heads = check_positive_int(heads, "heads"), check_positive_int(kv_heads, "kv_heads")
    if kv_heads > heads:
        raise ValueError(f"kv_heads={kv_heads} is more than heads={heads}; each K/V head serves one or more query heads")
    if heads % kv_heads:
        raise ValueError(
            f"heads={heads} is not divisible by kv_heads={kv_heads}; grouped-query attention shares each "
            "K/V head among an equal group of query heads"
        )
    return heads, kv_heads


def attention_kind(heads: int, kv_heads: int) -> str:
    """"MHA" (one K/V head per query head), "GQA" (groups of query heads share one) or "MQA" (all share one).

    >>> attention_kind(32, 32), attention_kind(64, 8), attention_kind(32, 1)
    ('MHA', 'GQA', 'MQA')
    """
    heads, kv_heads = _check_kv_heads(heads, kv_heads)
    if kv_heads == heads:
        return "MHA"
    return "MQA" if kv_heads == 1 else "GQA"


def kv_cache_bytes(
    layers: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    seq_len: int,
    batch: int = 1,
    dtype: Any = "float16",
) -> int:
    """Bytes of the KV cache: 2 (K and V) × layers × kv_heads × head_dim × seq_len × batch × bytes per element.

    While generating, a decoder keeps the keys and values of every earlier token of every
    layer, so that each new token computes only its own. Only K/V heads are cached, so
    `heads` (the query heads) matters only through the check that the grouping is even:
    multi-head attention has kv_heads == heads, grouped-query attention 1 < kv_heads < heads,
    multi-query attention kv_heads == 1. `dtype` is as in `qkv.complexity.bytes_per_element`.

    Llama-2-7B's shape (32 layers, 32 heads of 128, MHA) at its 4,096-token context, FP16:

    >>> nbytes = kv_cache_bytes(layers=32, heads=32, kv_heads=32, head_dim=128, seq_len=4096)
    >>> nbytes, format_bytes(nbytes)
    (2147483648, '2 GiB')

    The same model with one K/V head (multi-query) caches 32× less:

    >>> format_bytes(kv_cache_bytes(layers=32, heads=32, kv_heads=1, head_dim=128, seq_len=4096))
    '64 MiB'
    """
    layers = check_positive_int(layers, "layers")
    heads, kv_heads = _check_kv_heads(heads, kv_heads)
    head_dim = check_positive_int(head_dim, "head_dim")
    seq_len = check_positive_int(seq_len, "seq_len")
    batch = check_positive_int(batch, "batch")
    return 2 * layers * kv_heads * head_dim * seq_len * batch * bytes_per_element(dtype)


@dataclass(frozen=True)
class ModelShape:
    """The attention shape of a model, as published, and where the numbers come from."""

    name: str
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    context: int  # the context length the model was trained with
    source: str
    hypothetical: bool = False  # True for a variant made up here for comparison

    def __post_init__(self) -> None:
        for name in ("layers", "head_dim", "context"):
            check_positive_int(getattr(self, name), name)
        _check_kv_heads(self.heads, self.kv_heads)

    @property
    def kind(self) -> str:
        return attention_kind(self.heads, self.kv_heads)

    def cache_bytes(self, seq_len: int | None = None, batch: int = 1, dtype: Any = "float16") -> int:
        """`kv_cache_bytes` for this shape; `seq_len` defaults to the model's context length."""
        return kv_cache_bytes(
            self.layers, self.heads, self.kv_heads, self.head_dim, self.context if seq_len is None else seq_len, batch, dtype
        )

    def cache_text(self, seq_len: int | None = None, batch: int = 1, dtype: Any = "float16") -> str:
        return format_bytes(self.cache_bytes(seq_len, batch, dtype))


_LLAMA_1 = "LLaMA paper (Touvron et al. 2023a), Table 2: layers, heads, dimension"
_LLAMA_2 = "Llama 2 paper (Touvron et al. 2023b), Table 1: context length, GQA"

# Plain numbers, each with its source. head_dim = model dimension / heads (4096/32, 8192/64).
MODEL_SHAPES: tuple[ModelShape, ...] = (
    ModelShape("Llama-2-7B", layers=32, heads=32, kv_heads=32, head_dim=128, context=4096,
               source=f"{_LLAMA_1} (6.7B: 32 layers, 32 heads, dimension 4096); {_LLAMA_2} (7B: no GQA)"),
    ModelShape("Llama-2-7B, MQA", layers=32, heads=32, kv_heads=1, head_dim=128, context=4096,
               source="hypothetical: Llama-2-7B with a single K/V head", hypothetical=True),
    ModelShape("Mistral-7B", layers=32, heads=32, kv_heads=8, head_dim=128, context=8192,
               source="Mistral 7B paper (Jiang et al. 2023), Table 1: n_layers 32, n_heads 32, n_kv_heads 8, "
               "head_dim 128, context_len 8192"),
    ModelShape("Llama-2-70B", layers=80, heads=64, kv_heads=8, head_dim=128, context=4096,
               source=f"{_LLAMA_1} (65.2B: 80 layers, 64 heads, dimension 8192); {_LLAMA_2} (70B: GQA); "
               "8 K/V heads: num_key_value_heads in meta-llama/Llama-2-70b-hf's config.json"),
)
