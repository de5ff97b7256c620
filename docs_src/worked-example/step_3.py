from qkv import attention_scores
from qkv.examples import worked_example

example = worked_example()
scaled = attention_scores(example.q, example.k)  # the default scale is 1/√d_k
print(scaled.round(2))
