import numpy as np

from qkv import self_attention
from qkv.analysis import asymmetry
from qkv.examples import worked_example

identity = np.eye(4)
for x in (worked_example().x, [[1, 0, 1, 0], [0, 1, 1, 1]]):
    _, weights = self_attention(x, identity, identity, identity)  # (2, 2)
    print(weights.round(2), " ‖A − Aᵀ‖ =", round(asymmetry(weights), 2))
