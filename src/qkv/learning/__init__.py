"""Train the smallest transformer that resolves "it" in the article's sentence, and watch where it attends.

"The animal didn't cross the street because it was too tired": "it" is the animal; with "…too
wide" it is the street. `train_coreference(seed=0, **options)` trains a model on such sentences
generated from word lists (`qkv.learning.sentences`: 8 animals, 8 places, 6 adjectives that fit an
animal, 6 that fit a place, 4 frames) and returns a `CoreferenceModel` with `tokens(sentence)`,
`resolve(sentence)`, `attention(sentence)` and its `history`. Every (animal, place, adjective)
triple of the held-out set, the article's sentence and its "wide" twin among them, is missing from
training in every frame; `heldout_accuracy` is measured on those sentences only.

What the model sees and is told (`qkv.learning.network`):

- input: x = token embedding + learned position embedding, one row per word;
- two layers of single-head self-attention, each H ← H + softmax(Q·Kᵀ · scale) · V with
  Q = H·W_Q, K = H·W_K, V = H·W_V (a residual connection, no W_O, no normalisation);
- readout: only the final vector at "it", h_it. It is compared with the position embeddings of the
  two candidates, logit = h_it · p_candidate / √d_model, and a 2-way softmax says "the animal" or
  "the place". The loss is the cross-entropy of the right candidate: nothing says where to look.

The readout uses the candidates' positions, not their words, on purpose: with the words, "it"
could answer by the word's kind alone (an animate adjective ↔ whichever word is an animal), with
no need to find the word in the sentence.

Why two layers. In one layer the query at "it" is made from "it" and its position only, so it is
the same in "…too tired" and "…too wide" (same frame), and so are all keys but the adjective's:
the two sentences' scores differ in one entry, and softmax then scales every other weight by the
same factor. The ratio of the weights on "animal" and on "street" is the same in both sentences:
one layer cannot make "it" look at the animal in one and at the street in the other. The frames
come in pairs that swap the animal and the place around an "it" at the same position ("the ANIMAL
didn't cross the PLACE…" / "the PLACE didn't tempt the ANIMAL…"); the readout's two logits then
differ by h_it·(p₁ − p₅) in both frames of the first pair, with opposite meanings, while h_it only mixes the same
adjective's value into the frame's other values by a weight that grows with the adjective's score.
So for one animal, one place, one animal adjective and one place adjective, a single layer gets at
most three of the four sentences (two frames × two adjectives) right, whatever its weights. With
a second layer the query at "it" can carry what the first layer brought it (the adjective), and
can then pick a candidate by it. Whether the trained model does so, or resolves "it" another way
(the adjective's own row can pick the noun in layer 1, and "it" can read the adjective in layer 2),
is measured, not assumed: `referent_attention(model)` says how much "it" attends to the word it
refers to in each layer, over the held-out sentences.

Initialisation (`network.init_parameters`): token and position embeddings N(0, 1/2), so the
components of x have variance 1; every W is N(0, 1/d_model), so the components of q = x·W_Q and
k = x·W_K start with variance 1 as well, as the article's argument for 1/√d_k assumes
(Var[q·k] = d_k). Training: Adam (learning rate 0.01) on batches of 64 training sentences drawn
without replacement by one seeded numpy Generator, float64 throughout, 300 steps by default.

Options of `train_coreference` (keyword-only), and the experiments built from them
(`qkv.learning.experiments.EXPERIMENTS`):

- `scale` (default 1/√d_k) and `d_k` (default d_model = 24): scale 1, 1/√d_k and 1/d_k at
  d_k = 64; the history records the loss, the attention entropy, the norm of the gradient that
  reaches the scores and of the softmax's Jacobian at every step;
- `projections="tied"`: W_Q = W_K, so the scores form a symmetric matrix (softmax still
  normalises each row on its own, so the weights are not symmetric);
- `projections="none"`: Q = K = V = H, only the embeddings are learned; a word's score with
  itself, ‖x‖²·scale, starts near d_model·scale = √d_model, its score with another word near
  ±1, so each word attends mostly to itself, and it can only look elsewhere by moving embeddings
  that every layer shares as its queries, its keys and its values;
- `n_layers` (default 2), `d_model`, `steps`, `batch_size`, `learning_rate`;
- `optimizer="sgd"`: plain SGD (learning rate 0.5, `training.LEARNING_RATES` says how it was
  chosen) instead of Adam, whose steps do not shrink with the gradient; an overflow stops the run
  with `TrainingDiverged`.

The referent task (`train_referent(seed=0, **options)`, `qkv.learning.referent_sentences`): three
candidate nouns (an animal, a place, an object) in eight frames with fillers that move every word,
"it" before or after them; the model answers with the referent's word, scored against every noun
of the vocabulary, so it must bring the referent's identity to "it". Held out: (referent,
adjective) and (frame, adjective) pairs; no function of (frame, adjective) fits its training set.
Same network (d_model = 32), same loop, 600 steps.

Causal tests for both tasks: `rollout(model, sentence)` (attention rollout with the residual,
`qkv.learning.rollout`) and `ablate(model, batch, layers=…)`, which removes the edge "it" →
referent through the model's own forward pass (`model.forward(batch, edit=…)`) beside a control
edge, and counts the sentences still resolved (`qkv.learning.ablation`).

Results over seeds: training is chaotic, and the same seed trains to other numbers on another
OpenBLAS kernel, so `benchmarks/learned_attention.py` trains every run of `qkv.learning.runs.RUNS`
over seeds 0-9 and commits the records, the findings of `qkv.learning.findings` counted over the
seeds, and the shown seed's two models (`model_data` / `load_model`, `qkv.learning.saved`).

>>> from qkv.learning import train_coreference
>>> model = train_coreference(seed=0)
>>> model.tokens("The animal didn't cross the street because it was too tired")
['the', 'animal', "didn't", 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'tired']
>>> model.resolve("The animal didn't cross the street because it was too tired")
'animal'
>>> model.resolve("The animal didn't cross the street because it was too wide")
'street'
>>> model.attention("The animal didn't cross the street because it was too wide").shape  # (layers, n, n)
(2, 11, 11)
"""

from __future__ import annotations

from qkv.learning.ablation import Ablation, ablate
from qkv.learning.experiments import EXPERIMENTS, ReferentAttention, referent_attention, run_experiments
from qkv.learning.referent import train_referent
from qkv.learning.rollout import rollout, rollout_batch
from qkv.learning.saved import load_model, model_data
from qkv.learning.training import CoreferenceModel, TrainingHistory, train_coreference

__all__ = [
    "train_coreference",
    "train_referent",
    "rollout",
    "rollout_batch",
    "ablate",
    "Ablation",
    "load_model",
    "model_data",
    "CoreferenceModel",
    "TrainingHistory",
    "EXPERIMENTS",
    "run_experiments",
    "referent_attention",
    "ReferentAttention",
]
