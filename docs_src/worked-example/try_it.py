import numpy as np

from qkv import scaled_dot_product_attention
from qkv.examples import worked_example

example = worked_example()
q = example.x @ example.w_q  # (2, 4) @ (4, 3) -> (2, 3)
k = example.x @ example.w_k
v = example.x @ example.w_v
output, weights = scaled_dot_product_attention(q, k, v)  # scale = 1/sqrt(d_k)
print(np.round(output, 2))
