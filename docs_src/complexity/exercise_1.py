from qkv.complexity import attention_matrix_bytes, format_bytes

n, layers, heads = 32_768, 32, 32
for dtype in ("float16", "float32"):
    size = attention_matrix_bytes(n, dtype)
    print(dtype, f"{n:,}² × {size // n**2} B =", format_bytes(size))
print("float16, one layer,", heads, "heads =", format_bytes(attention_matrix_bytes(n, "float16", heads=heads)))
print("float16,", layers, "×", heads, "=", format_bytes(attention_matrix_bytes(n, "float16", heads=heads, layers=layers)))
