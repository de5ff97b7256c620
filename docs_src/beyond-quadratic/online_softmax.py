from qkv import online_softmax_steps
from qkv.examples import worked_example

example = worked_example()
steps = online_softmax_steps(example.scaled_scores, block_size=1, v=example.v)  # one key per block
for step in steps:
    print(step.running_max.round(2), step.running_sum.round(2))  # m, ℓ
print(steps[-1].weights.round(2))
