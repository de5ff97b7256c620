import json
import statistics
from pathlib import Path

runs = json.loads(Path("benchmarks/results/learned_attention.json").read_text(encoding="utf-8"))
for name in ("scale 1", "scale 1/√d_k", "scale 1/d_k", "SGD scale 1", "SGD scale 1/√d_k", "SGD scale 1/d_k"):
    # one run again: train_coreference(seed, **qkv.learning.runs.RUNS[name][1])
    finals = [r["final"] for r in runs["records"][name].values() if "final" in r]  # an overflowed run has none
    print(name, "| final held-out accuracy:", min(finals), "to", max(finals), "| median:", statistics.median(finals))
