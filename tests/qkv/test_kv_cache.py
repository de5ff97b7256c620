"""qkv.kv_cache: the KV cache of MHA, GQA and MQA, from its formula, for published model shapes."""

from __future__ import annotations

import re

import pytest

import qkv
from qkv.complexity import format_bytes
from qkv.kv_cache import MODEL_SHAPES, ModelShape, attention_kind, kv_cache_bytes


def test_exported_from_qkv() -> None:
    assert qkv.kv_cache_bytes is kv_cache_bytes


def test_llama_2_7b_by_hand() -> None:
    # 32 layers, 32 heads of dimension 128 (4096 / 32), MHA, 4,096 tokens, FP16 (2 bytes):
    # K and V of every layer hold seq_len × kv_heads × head_dim numbers each.
    layers, kv_heads, head_dim, seq_len, fp16 = 32, 32, 128, 4096, 2
    by_hand = 2 * layers * (seq_len * kv_heads * head_dim) * fp16
    assert by_hand == 2**31
    assert kv_cache_bytes(layers=32, heads=32, kv_heads=32, head_dim=128, seq_len=4096) == by_hand
    assert format_bytes(by_hand) == "2 GiB"
    # Per token: 2 × 32 × 32 × 128 × 2 bytes = 512 KiB, the figure usually quoted for Llama-2-7B.
    assert kv_cache_bytes(32, 32, 32, 128, seq_len=1) == 512 * 1024


def test_llama_2_70b_gqa_by_hand() -> None:
    by_hand = 2 * 80 * 8 * 128 * 4096 * 2  # 80 layers, 8 K/V heads of 128, 4,096 tokens, FP16
    assert kv_cache_bytes(layers=80, heads=64, kv_heads=8, head_dim=128, seq_len=4096) == by_hand
    assert format_bytes(by_hand) == "1.25 GiB"


@pytest.mark.parametrize(("heads", "kv_heads", "kind"), [(32, 32, "MHA"), (64, 8, "GQA"), (32, 8, "GQA"), (32, 1, "MQA"), (8, 2, "GQA")])
def test_ratio_to_multi_head_is_exactly_heads_over_kv_heads(heads: int, kv_heads: int, kind: str) -> None:
    mha = kv_cache_bytes(layers=24, heads=heads, kv_heads=heads, head_dim=64, seq_len=1000, batch=3)
    other = kv_cache_bytes(layers=24, heads=heads, kv_heads=kv_heads, head_dim=64, seq_len=1000, batch=3)
    assert mha % other == 0 and mha // other == heads // kv_heads
    assert attention_kind(heads, kv_heads) == kind


def test_linear_in_every_factor_and_in_bytes_per_element() -> None:
    base = kv_cache_bytes(2, 4, 2, 16, 10, batch=1, dtype="float16")
    assert kv_cache_bytes(4, 4, 2, 16, 10) == 2 * base
    assert kv_cache_bytes(2, 4, 2, 32, 10) == 2 * base
    assert kv_cache_bytes(2, 4, 2, 16, 30) == 3 * base
    assert kv_cache_bytes(2, 4, 2, 16, 10, batch=5) == 5 * base
    assert kv_cache_bytes(2, 4, 2, 16, 10, dtype="fp32") == 2 * base
    assert kv_cache_bytes(2, 4, 2, 16, 10, dtype="bf16") == base
    assert kv_cache_bytes(2, 4, 2, 16, 10, dtype="int8") == base // 2


def test_model_shapes_are_consistent_and_sourced() -> None:
    names = [shape.name for shape in MODEL_SHAPES]
    assert names == ["Llama-2-7B", "Llama-2-7B, MQA", "Mistral-7B", "Llama-2-70B"]
    kinds = {shape.name: shape.kind for shape in MODEL_SHAPES}
    assert kinds == {"Llama-2-7B": "MHA", "Llama-2-7B, MQA": "MQA", "Mistral-7B": "GQA", "Llama-2-70B": "GQA"}
    for shape in MODEL_SHAPES:
        assert shape.source
        assert shape.hypothetical == ("hypothetical" in shape.source)
        assert shape.cache_bytes() == kv_cache_bytes(shape.layers, shape.heads, shape.kv_heads, shape.head_dim, shape.context)
    llama, mqa = MODEL_SHAPES[0], MODEL_SHAPES[1]
    assert llama.cache_bytes() // mqa.cache_bytes() == 32
    assert MODEL_SHAPES[2].cache_text(seq_len=4096) == "0.5 GiB"  # format_bytes: 2^29 bytes


# ---- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["layers", "heads", "kv_heads", "head_dim", "seq_len", "batch"])
@pytest.mark.parametrize(("value", "error"), [(0, ValueError), (-2, ValueError), (1.5, TypeError)])
def test_every_size_must_be_a_positive_int(name: str, value: object, error: type[Exception]) -> None:
    arguments = {"layers": 2, "heads": 4, "kv_heads": 2, "head_dim": 8, "seq_len": 16, "batch": 1, name: value}
    with pytest.raises(error, match=re.escape(f"{name} must be a positive int, got {value!r}")):
        kv_cache_bytes(**arguments)


def test_a_size_of_the_wrong_type() -> None:
    with pytest.raises(TypeError, match="seq_len must be a positive int, got '4096'"):
        kv_cache_bytes(32, 32, 32, 128, "4096")


def test_heads_must_be_divisible_by_kv_heads() -> None:
    with pytest.raises(ValueError, match=re.escape("heads=32 is not divisible by kv_heads=6")):
        kv_cache_bytes(layers=32, heads=32, kv_heads=6, head_dim=128, seq_len=4096)


def test_more_kv_heads_than_heads() -> None:
    with pytest.raises(ValueError, match=re.escape("kv_heads=64 is more than heads=32")):
        kv_cache_bytes(layers=32, heads=32, kv_heads=64, head_dim=128, seq_len=4096)


def test_unknown_dtype() -> None:
    with pytest.raises(ValueError, match="unknown dtype 'float8'"):
        kv_cache_bytes(32, 32, 32, 128, 4096, dtype="float8")


def test_model_shape_validates() -> None:
    with pytest.raises(ValueError, match="not divisible"):
        ModelShape("bad", layers=1, heads=6, kv_heads=4, head_dim=8, context=16, source="test")
