import json
from pathlib import Path

from qkv.learning import load_model

# The stored runs (trained once by the site's benchmark script; run from the folder that holds benchmarks/).
runs = json.loads(Path("benchmarks/results/learned_attention.json").read_text(encoding="utf-8"))
finals = [record["final"] for record in runs["records"]["baseline"].values()]  # seeds 0-9
print("baseline, final held-out accuracy over seeds:", min(finals), "to", max(finals))

# model = train_coreference(seed=0)  # trains it again (seconds); its last digits follow the CPU
model = load_model("benchmarks/results/learned_model_coreference.json")  # seed 0, the stored run
sentence = "The animal didn't cross the street because it was too tired"
words = model.tokens(sentence)
for layer, rows in enumerate(model.attention(sentence), start=1):  # (layers, n, n)
    row = rows[words.index("it")]  # where "it" looks
    print("layer", layer, words[row.argmax()], f"{row.max():.2f}", "animal:", f"{row[words.index('animal')]:.2f}")
