import numpy as np

from qkv import attention_scores, project, scaled_dot_product_attention, softmax

n, d_model, d_k, d_v = 6, 512, 64, 64
rng = np.random.default_rng(0)
x = rng.standard_normal((n, d_model))
w_q, w_k, w_v = rng.standard_normal((3, d_model, d_k)) / np.sqrt(d_model)  # d_v = d_k here
q, k, v = project(x, w_q), project(x, w_k), project(x, w_v)  # step 1
scores = attention_scores(q, k, scale=1.0)  # step 2
scaled = attention_scores(q, k)  # step 3
weights = softmax(scaled)  # step 4
output, _ = scaled_dot_product_attention(q, k, v)  # step 5
for step, result in ((1, q), (1, k), (1, v), (2, scores), (3, scaled), (4, weights), (5, output)):
    print(step, result.shape)
