from qkv.learning import EXPERIMENTS, train_coreference

for name in ("tied W_Q = W_K", "no projections"):
    model = train_coreference(0, **EXPERIMENTS[name])
    print(name, round(model.heldout_accuracy, 3))
