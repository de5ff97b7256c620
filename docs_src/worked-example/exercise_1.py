import numpy as np

from qkv.examples import worked_example

example = worked_example()
zeros = np.zeros((example.x.shape[1], 1), dtype=int)  # (d_model, 1)
wider = worked_example(w_q=np.hstack([example.w_q, zeros]), w_k=np.hstack([example.w_k, zeros]))
print("d_k =", example.d_k, "->", wider.d_k)
print(wider.scores)  # Q·Kᵀ
print(wider.scaled_scores.round(2))  # Q·Kᵀ/√d_k
print(wider.weights.round(2))
print(example.weights[0, 0].round(2), "->", wider.weights[0, 0].round(2))  # weight of "I" on itself
