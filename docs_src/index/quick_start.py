from qkv import self_attention
from qkv.examples import worked_example

example = worked_example()
output, weights = self_attention(example.x, example.w_q, example.w_k, example.w_v)
print(weights.round(2))
