import numpy as np

from qkv import self_attention
from qkv.examples import worked_example

example = worked_example()
output, weights = self_attention(example.x, example.w_q, example.w_k, example.w_v)
v = example.x @ example.w_v  # (2, 4) @ (4, 3) -> (2, 3)
print(bool((weights >= 0).all()), np.allclose(weights.sum(axis=-1), 1))
print(np.allclose(output, weights @ v))
print(bool((output >= v.min(axis=0)).all() and (output <= v.max(axis=0)).all()))
