def computed_scores(n: int, rows: int) -> int:
    """Scores computed with causal skipping: a block of query rows r0..r1-1 needs keys 0..r1-1 only."""
    total = 0
    for r0 in range(0, n, rows):
        r1 = min(r0 + rows, n)
        total += (r1 - r0) * r1
    return total


for n in (1024, 4096):  # qkv: blocks of at most 2**20 scores and at most n/8 rows
    rows = max(32, min(2**20 // n, n // 8))
    print("qkv", n, rows, computed_scores(n, rows) / n**2)
for n in (2048, 4096):  # tiled_attention: tiles of 1024 × 1024
    print("tiled", n, 1024, computed_scores(n, 1024) / n**2)
