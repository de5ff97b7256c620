from qkv.analysis import scaling_study

measured = scaling_study([512], n_keys=16, seed=0)  # d_k = 512, 500 random queries, each with 16 random keys
for strategy in ("none", "d_k", "sqrt_d_k"):
    print(strategy, round(float(measured.max_weight[strategy][0]), 2), round(float(measured.entropy[strategy][0]), 2))
