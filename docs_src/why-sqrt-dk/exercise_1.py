import math

from qkv.analysis import dot_product_variance

d_k = 64
study = dot_product_variance([1, 8, 64, 512], seed=0)  # the same draw as the table above
i = list(study.d_k).index(d_k)
std = math.sqrt(d_k)
print(study.n_samples)  # pairs of vectors
print(study.variance[i].round(2), study.scaled_variance[i].round(2))  # Var[q·k], Var[q·k / √d_k]
print(std, round(math.exp(std)), round(math.e, 2))  # √d_k, e^√d_k, e^1
