from qkv import scaled_dot_product_attention
from qkv.examples import worked_example

example = worked_example()
output, weights = scaled_dot_product_attention(example.q, example.k, example.v)
print(output.round(2))  # weights @ V: (2, 2) @ (2, 3) -> (2, 3)
