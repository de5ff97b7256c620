from qkv import causal_mask, self_attention
from qkv.examples import translation_example

encoder = translation_example().encoder
_, masked = self_attention(encoder.x, encoder.w_q, encoder.w_k, encoder.w_v, mask=causal_mask(len(encoder.tokens)))
love = encoder.tokens.index("love")
print(encoder.tokens)
print(encoder.weights[love].round(2))  # without the mask
print(masked[love].round(2))  # with a causal mask
