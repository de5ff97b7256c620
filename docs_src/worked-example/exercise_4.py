from qkv.examples import worked_example

example = worked_example()
changed = worked_example(x=[[1, 1, 1, 0], [0, 1, 0, 1]])
print(changed.q)
print(changed.k)
print(changed.weights.round(2))
print(example.weights[:, 0].round(2), "->", changed.weights[:, 0].round(2))  # attention to "I"
