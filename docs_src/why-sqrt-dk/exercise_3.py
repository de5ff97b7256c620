from qkv import scaled_dot_product_attention
from qkv.analysis import SCALINGS, scaling_factor
from qkv.examples import worked_example

example = worked_example(w_q=5 * worked_example().w_q)
for strategy in SCALINGS:  # none, d_k, sqrt_d_k
    scale = scaling_factor(strategy, example.d_k)
    _, weights = scaled_dot_product_attention(example.q, example.k, example.v, scale=scale)
    print(strategy, weights[0].round(2))  # the row of "I": on "I", on "love"
