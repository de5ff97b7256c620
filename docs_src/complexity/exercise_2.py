import math

from qkv.complexity import step_multiplications


def quadratic_part_wins(n: int, d: int) -> bool:
    counts = step_multiplications(n, d)
    return counts["scores"] + counts["scale"] + counts["softmax"] + counts["weighted_sum"] > counts["projections"]


d = 512
bound = 3 * d * d / (2 * d + 2)
n = math.floor(bound) + 1  # the smallest integer above the bound
assert quadratic_part_wins(n, d) and not quadratic_part_wins(n - 1, d)
print(f"bound = {bound:.1f}, smallest n = {n}")
