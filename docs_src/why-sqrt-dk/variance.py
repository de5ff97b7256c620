from qkv.analysis import dot_product_variance

study = dot_product_variance([1, 8, 64, 512], seed=0)  # 20,000 pairs of N(0, 1) vectors per d_k
print(study.variance.round(2))  # close to d_k
print(study.scaled_variance.round(2))  # close to 1 after dividing by √d_k
