import math

from qkv import attention_scores
from qkv.examples import it_animal_sentence

sentence = it_animal_sentence()
row = sentence.weights_of("it")
q = sentence.x @ sentence.w_q  # (12, 6) @ (6, 2) -> (12, 2)
k = sentence.x @ sentence.w_k  # (12, 2)
scores = attention_scores(q, k)  # (12, 12), already divided by √d_k
it, animal, street = (sentence.tokens.index(token) for token in ("it", "animal", "street"))
gap = scores[it, animal] - scores[it, street]
print(round(row["animal"], 4), round(row["street"], 4), round(row["animal"] / row["street"], 4))  # the two weights, their ratio
print(round(gap, 4), round(math.exp(gap), 4))  # the two scores' difference, e to that power
