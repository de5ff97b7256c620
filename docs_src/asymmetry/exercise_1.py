import numpy as np

from qkv import self_attention
from qkv.analysis import asymmetry

x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # (3 tokens, d_model = 2)
identity = np.eye(2)
_, weights = self_attention(x, identity, identity, identity)  # (3, 3)
scores = x @ x.T / np.sqrt(2)  # the scaled scores, (3, 3)
row_sums = np.exp(scores).sum(axis=1)  # Z_i, the softmax denominator of each row
print(weights.round(2))
print("‖S − Sᵀ‖ =", round(asymmetry(scores), 2), " ‖A − Aᵀ‖ =", round(asymmetry(weights), 2))
print("Z =", row_sums.round(2), " ‖diag(Z)·A − (diag(Z)·A)ᵀ‖ =", round(asymmetry(row_sums[:, None] * weights), 2))
