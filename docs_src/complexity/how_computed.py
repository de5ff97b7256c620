from qkv.complexity import attention_matrix_bytes, crossover_length, step_multiplications

print(step_multiplications(4096, 512))  # n = 4,096, d = 512
print(crossover_length(512))
print(attention_matrix_bytes(128_000, dtype="float16"))  # bytes
