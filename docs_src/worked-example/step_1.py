from qkv import project
from qkv.examples import worked_example

example = worked_example()
q = project(example.x, example.w_q)  # (2, 4) @ (4, 3) -> (2, 3)
k = project(example.x, example.w_k)
v = project(example.x, example.w_v)
print(q)
print(k)
print(v)
