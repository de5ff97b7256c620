from qkv import attention_scores, softmax
from qkv.examples import worked_example

example = worked_example()
weights = softmax(attention_scores(example.q, example.k), axis=-1)  # row by row
print(weights.round(2))
print(weights.sum(axis=-1))  # every row sums to 1
