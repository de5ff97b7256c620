from qkv.learning import EXPERIMENTS, train_coreference

for name in ("scale 1", "scale 1/√d_k", "scale 1/d_k"):
    history = train_coreference(0, **EXPERIMENTS[name]).history
    print(name, EXPERIMENTS[name])
    print(" held-out accuracy:", history.heldout_accuracy.round(3))  # at steps 0, 30, …, 300
    entropy, jacobian = history.entropy[0].mean().round(2), history.jacobian_norm[0].mean().round(2)  # step 0
    print(" entropy at step 0:", entropy, " Jacobian at step 0:", jacobian)
