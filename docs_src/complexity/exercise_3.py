from qkv.complexity import step_multiplications, total_multiplications

d, n = 512, 4096
print(f"{total_multiplications(n, d):,} → {total_multiplications(2 * n, d):,}:",
      f"× {total_multiplications(2 * n, d) / total_multiplications(n, d):.2f}")
before, after = step_multiplications(n, d), step_multiplications(2 * n, d)
for step in before:
    print(f"{step}: × {after[step] / before[step]:g}")
