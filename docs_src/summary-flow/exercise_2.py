import numpy as np

from qkv.examples import worked_example

example = worked_example()
changed = worked_example(x=[example.x[0], [1, 1, 0, 0]])  # only "love" changes
for name in ("q", "k", "v", "scores", "weights", "output"):
    before, after = getattr(example, name), getattr(changed, name)
    rows = [token for i, token in enumerate(example.tokens) if not np.allclose(before[i], after[i])]
    print(name, rows)
