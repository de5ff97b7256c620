import numpy as np

from qkv import cross_attention

rng = np.random.default_rng(0)
x_decoder = rng.standard_normal((3, 8))  # 3 target tokens generated so far, d_model = 8
x_encoder = rng.standard_normal((5, 8))  # 5 source tokens
w_q, w_k, w_v = rng.standard_normal((3, 8, 4))  # each (d_model, 4)
output, weights = cross_attention(x_decoder, x_encoder, w_q, w_k, w_v)
print(weights.shape, output.shape)
print(np.allclose(weights.sum(axis=-1), 1))
