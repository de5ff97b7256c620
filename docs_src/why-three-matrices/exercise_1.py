import numpy as np

from qkv import scaled_dot_product_attention
from qkv.examples import worked_example

x = np.asarray(worked_example().x, dtype=float)  # "I", "love"
_, unprojected = scaled_dot_product_attention(x, x, x, scale=1.0)  # softmax(XXᵀ)X, as on this page
print(x @ x.T)  # XXᵀ
print((x**2).sum(axis=1))  # ‖x_i‖²
print(unprojected.round(2))  # softmax(XXᵀ)
short_long = np.array([[1.0, 0.0], [3.0, 0.0]])  # same direction, different lengths
_, weights = scaled_dot_product_attention(short_long, short_long, short_long, scale=1.0)
print(weights.round(2))
