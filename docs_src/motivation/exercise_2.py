import numpy as np

from qkv import self_attention
from qkv.examples import it_animal_sentence

sentence = it_animal_sentence()
gone = sentence.tokens.index("animal")
tokens = [token for token in sentence.tokens if token != "animal"]
x = np.delete(sentence.x, gone, axis=0)  # (11, 6): the sentence without "animal"
_, weights = self_attention(x, sentence.w_q, sentence.w_k, sentence.w_v)  # (11, 11)
print(tokens)
print(weights[tokens.index("it")].round(4))  # where "it" looks without "animal"
print(round(sentence.weights_of("it")["street"], 4))  # "street" before
