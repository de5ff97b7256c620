from qkv.learning import load_model

model = load_model("benchmarks/results/learned_model_coreference.json")  # seed 0, the stored run
for sentence in ("because it was too icy the highway didn't tempt the cat",
                 "because it was too sleepy the road didn't tempt the cat"):
    words = model.tokens(sentence)
    print(sentence, "->", model.resolve(sentence))
    for layer, rows in enumerate(model.attention(sentence), start=1):
        row = rows[words.index("it")]
        print(" layer", layer, words[row.argmax()], f"{row.max():.2f}")
