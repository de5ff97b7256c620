import math

from qkv.analysis import dot_product_variance

d_k = 64
study = dot_product_variance([1, 8, 64, 512], seed=0)  # the same draw as the table above
i = list(study.d_k).index(d_k)
std = math.sqrt(d_k)
print("pairs:", study.n_samples)
print("Var[q·k] =", round(float(study.variance[i]), 2), " Var[q·k / √d_k] =", round(float(study.scaled_variance[i]), 2))
print("√d_k =", std, " e^√d_k =", round(math.exp(std)), " e^1 =", round(math.e, 2))
