from qkv.learning import train_coreference

model = train_coreference(seed=0)
for sentence in ("because it was too icy the street didn't tempt the cat",
                 "because it was too sleepy the street didn't tempt the cat"):
    words = model.tokens(sentence)
    print(sentence, "->", model.resolve(sentence))
    for layer, rows in enumerate(model.attention(sentence), start=1):
        row = rows[words.index("it")]
        print(" layer", layer, words[row.argmax()], row.max().round(2))
