import numpy as np

from qkv import causal_mask, scaled_dot_product_attention
from qkv.examples import worked_example

example = worked_example()
q, k, v = example.q, example.k, example.v
masked_output, masked_weights = scaled_dot_product_attention(q, k, v, mask=causal_mask(2))
print(masked_weights.round(2))
print(masked_output.round(2))
print(np.allclose(masked_weights[1], example.weights[1]) and np.allclose(masked_output[1], example.output[1]))  # row 2 as before
