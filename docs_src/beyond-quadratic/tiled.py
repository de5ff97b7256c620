import numpy as np

from qkv import causal_mask, scaled_dot_product_attention, tiled_attention

rng = np.random.default_rng(0)
q, k, v = rng.standard_normal((3, 1000, 64))  # n = 1000, d = 64
output, weights = scaled_dot_product_attention(q, k, v)  # weights: (1000, 1000)
tiled = tiled_attention(q, k, v, block_size=128)  # 1000 is not a multiple of 128
print(weights.shape, tiled.shape, np.abs(tiled - output).max() < 1e-12)
causal = tiled_attention(q, k, v, block_size=128, is_causal=True)  # tiles above the diagonal are skipped
masked, _ = scaled_dot_product_attention(q, k, v, mask=causal_mask(1000))
print(np.abs(causal - masked).max() < 1e-12)
