from qkv import kv_cache_bytes
from qkv.kv_cache import MODEL_SHAPES

for shape in MODEL_SHAPES:
    size = kv_cache_bytes(shape.layers, shape.heads, shape.kv_heads, shape.head_dim, seq_len=4096)  # FP16, batch 1
    print(shape.kind, shape.kv_heads, size)  # kind, K/V heads, bytes
