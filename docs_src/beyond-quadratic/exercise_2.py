import numpy as np

from qkv import scaled_dot_product_attention, tiled_attention

rng = np.random.default_rng(1)
q, k, v = rng.standard_normal((3, 50, 16))  # n = 50, d = 16
expected, _ = scaled_dot_product_attention(q, k, v)
for block_size in (1, 7, 64):
    tiled = tiled_attention(q, k, v, block_size=block_size)
    print(block_size, np.abs(tiled - expected).max() < 1e-12)
