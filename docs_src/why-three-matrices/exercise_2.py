import numpy as np

from qkv.examples import worked_example

example = worked_example()
x = np.asarray(example.x, dtype=float)
merged = example.w_q @ example.w_k.T  # (d_model, d_k) @ (d_k, d_model) -> (d_model, d_model)
print(merged)  # W_Q W_Kᵀ
print(np.allclose(example.scores, x @ merged @ x.T))  # QKᵀ = X (W_Q W_Kᵀ) Xᵀ?
print(np.linalg.matrix_rank(merged), example.d_k)  # its rank, d_k
d_model, d_k = 512, 64
print(2 * d_model * d_k, d_model**2, d_model**2 // (2 * d_model * d_k))  # separate, merged, ratio
