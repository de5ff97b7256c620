from qkv.analysis import asymmetry
from qkv.examples import cat_sat_on_mat

cat = cat_sat_on_mat()
print(cat.tokens)
print(cat.weights.round(2))  # A: row i is how token i spreads its attention
print(round(asymmetry(cat.weights), 2))  # the size of A − Aᵀ; 0 for a symmetric matrix
