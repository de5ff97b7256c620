from qkv import attention_scores
from qkv.examples import worked_example

example = worked_example()
scores = attention_scores(example.q, example.k, scale=1.0)  # Q·Kᵀ: (2, 3) @ (3, 2) -> (2, 2)
print(scores)
