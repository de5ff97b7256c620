import numpy as np

from qkv.analysis import asymmetry
from qkv.examples import worked_example

example = worked_example()
tied = worked_example(w_q=example.w_k)  # W_Q = W_K
print(tied.scores)  # QKᵀ
print(tied.weights.round(2))
print(asymmetry(tied.scores))  # ‖QKᵀ − (QKᵀ)ᵀ‖_F
own = np.all(tied.weights.argmax(axis=1) == np.arange(len(tied.tokens)))  # each row's largest on the diagonal?
print(own)
