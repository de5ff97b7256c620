import json
from pathlib import Path

from qkv.learning import load_model
from qkv.learning.sentences import FRAMES

two = load_model("benchmarks/results/learned_model_coreference.json")  # two layers, seed 0, the stored run
for frame in FRAMES[:2]:
    for adjective in ("tired", "wide"):
        sentence = frame.format(animal="animal", place="street", adjective=adjective)
        print(sentence, "|", two.resolve(sentence))
runs = json.loads(Path("benchmarks/results/learned_attention.json").read_text(encoding="utf-8"))
print("one layer, final held-out accuracy over seeds:", sorted(r["final"] for r in runs["records"]["one layer"].values()))
