import numpy as np

from qkv import softmax
from qkv.examples import worked_example

scaled = worked_example().scaled_scores  # (2, 2)
shifted = scaled - scaled.max(axis=-1, keepdims=True)  # the largest score of each row becomes 0
print(np.allclose(softmax(shifted), softmax(scaled)))
print(softmax(np.array([1000.0, 999.0])).round(2))  # e^1000 would overflow; e^0 and e^-1 do not
