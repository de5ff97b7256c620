from qkv import causal_mask

print(causal_mask(4).astype(int))  # row i: token i sees itself and the tokens before it
