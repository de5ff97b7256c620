from qkv import kv_cache_bytes
from qkv.complexity import format_bytes
from qkv.kv_cache import MODEL_SHAPES, attention_kind

llama = next(shape for shape in MODEL_SHAPES if shape.name == "Llama-2-70B")
n = 32_768
gqa = kv_cache_bytes(llama.layers, llama.heads, llama.kv_heads, llama.head_dim, seq_len=n)
for kv_heads in (llama.heads, llama.kv_heads, 1):
    size = kv_cache_bytes(llama.layers, llama.heads, kv_heads, llama.head_dim, seq_len=n)
    print(attention_kind(llama.heads, kv_heads), kv_heads, format_bytes(size), f"× {size / gqa:g}")  # × the GQA cache
