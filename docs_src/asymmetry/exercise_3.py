from qkv import causal_mask, self_attention
from qkv.analysis import asymmetry
from qkv.examples import cat_sat_on_mat

cat = cat_sat_on_mat()
_, masked = self_attention(cat.x, cat.w_q, cat.w_k, cat.w_v, mask=causal_mask(len(cat.tokens)))  # (4, 4)
print(masked.round(2))
print("‖A − Aᵀ‖ =", round(asymmetry(masked), 2))
