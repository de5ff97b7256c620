from qkv.examples import worked_example

example = worked_example()
print(example.tokens)
print(example.x)  # (2, 4): one row per token
