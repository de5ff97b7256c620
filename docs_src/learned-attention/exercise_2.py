from qkv.learning import train_coreference
from qkv.learning.sentences import FRAMES

one, two = train_coreference(0, n_layers=1), train_coreference(0)
for frame in FRAMES[:2]:
    for adjective in ("tired", "wide"):
        sentence = frame.format(animal="animal", place="street", adjective=adjective)
        print(sentence, "|", one.resolve(sentence), "|", two.resolve(sentence))
