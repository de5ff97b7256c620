import numpy as np

from qkv import scaled_dot_product_attention

k = np.array([[1.0, 0.0], [0.0, 1.0]])  # (2 keys, d_k = 2)
v = np.array([[10.0, 0.0], [0.0, 10.0]])  # (2 keys, d_v = 2)
queries = np.array([[1.0, 0.0], [10.0, 0.0]])  # (2 queries, d_k): q and 10 q, one row each
output, weights = scaled_dot_product_attention(queries, k, v)  # (2, 2), (2, 2)
with np.printoptions(suppress=True):  # 0.0008, not 8e-04
    print(weights.round(4))
    print(output.round(2))
