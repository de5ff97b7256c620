from qkv import scaled_dot_product_attention
from qkv.examples import cat_sat_on_mat

cat = cat_sat_on_mat()
sit = cat.tokens.index("坐在")
_, unprojected = scaled_dot_product_attention(cat.x, cat.x, cat.x, scale=1.0)  # softmax(X·Xᵀ)·X
print(cat.tokens)
print(unprojected[sit].round(2))  # the row of 坐在 without projections
print(cat.weights[sit].round(2))  # the same row with W_Q, W_K and W_V
