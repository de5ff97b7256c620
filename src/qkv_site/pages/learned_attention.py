"""The numbers of the page “让模型自己学会注意 / Watching a model learn to attend”.

Every model is trained once per process (`qkv.learning` caches each run), so the page, its
figures and the motivation page's caption share the same runs. Each sentence of the page that
compares these numbers (“sits at chance”, “saturates”, “does not attend to its referent”) is
checked here: when the numbers stop supporting it, the build stops naming it.

>>> from qkv_site.project import load_project
>>> project = load_project("mkdocs.yml")
>>> values(project)["baseline"]["accuracy"]
'100.0%'
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np

from qkv.analysis import asymmetry
from qkv.learning import EXPERIMENTS, CoreferenceModel, referent_attention, run_experiments
from qkv.learning import sentences as s
from qkv.learning.experiments import LARGE_D_K
from qkv.learning.network import init_parameters
from qkv_site.content.claims import Claims
from qkv_site.content.formatting import number, percent
from qkv_site.project import Project

PAGE = "learned-attention.md"
CHANCE_BAND = 0.05  # held-out accuracy within 5 points of 50% is "at chance"
LEARNED = 0.99  # held-out accuracy from which a task counts as learned
SCALES = ("scale 1", "scale 1/√d_k", "scale 1/d_k")


def accuracy(x: float) -> str:
    """A held-out accuracy to one decimal of a percent (620 sentences: one sentence is 0.16 points).

    >>> accuracy(0.6241935)
    '62.4%'
    """
    return f"{float(x):.1%}"


def weight(x: float) -> str:
    """An attention weight to two decimals, always with both (a weight of 0.999 is "1.00", not "1").

    >>> weight(0.9996), weight(0.004)
    ('1.00', '0.00')
    """
    return f"{float(x):.2f}"


claims = Claims(PAGE)


@cache
def models() -> dict[str, CoreferenceModel]:
    """Every experiment of `qkv.learning.EXPERIMENTS`, seed 0 (trained once per process)."""
    return run_experiments(seed=0)


def _first_step(model: CoreferenceModel, at_least: float) -> int | None:
    """The first evaluation step whose held-out accuracy is at least `at_least`, or None."""
    h = model.history
    reached = np.flatnonzero(h.heldout_accuracy >= at_least)
    return int(h.eval_steps[reached[0]]) if reached.size else None


def _at_chance_until(model: CoreferenceModel) -> int:
    """The last evaluation step up to which every held-out accuracy is within `CHANCE_BAND` of 50%."""
    h = model.history
    off = np.flatnonzero(np.abs(h.heldout_accuracy - 0.5) > CHANCE_BAND)
    last = off[0] - 1 if off.size else len(h.eval_steps) - 1
    return int(h.eval_steps[max(last, 0)])


def _task() -> dict[str, str]:
    train, heldout = s.corpus(heldout=False), s.corpus(heldout=True)
    o = models()["baseline"].options
    return {"animals": str(len(s.ANIMALS)), "places": str(len(s.PLACES)),
            "animal_adjectives": str(len(s.ANIMAL_ADJECTIVES)), "place_adjectives": str(len(s.PLACE_ADJECTIVES)),
            "frames": str(len(s.FRAMES)), "sentences": f"{len(train) + len(heldout):,}",
            "train": f"{len(train):,}", "heldout": f"{len(heldout):,}", "triples": str(len(s.heldout_triples())),
            "words": str(len(s.VOCABULARY) - 1), "d_model": str(o.d_model), "layers": str(o.n_layers),
            "steps": str(o.steps), "batch": str(o.batch_size), "learning_rate": number(o.learning_rate),
            "large_d_k": str(LARGE_D_K), "uniform_entropy": number(math.log(len(s.tokens(s.ARTICLE_SENTENCE))))}


def _baseline() -> dict[str, Any]:
    model = models()["baseline"]
    h = model.history
    learned = _first_step(model, LEARNED)
    # exact: an accuracy is a count of sentences over their number, 1.0 only when every one is right
    claims.require(learned is not None and h.heldout_accuracy[-1] == 1.0 and h.loss[-1] < h.loss[0] / 100,
                   sentence="the loss falls to a hundredth of its start and every held-out sentence ends up resolved")
    tired, wide = model.probabilities(s.ARTICLE_SENTENCE), model.probabilities(s.ARTICLE_TWIN)
    claims.require(tired["animal"] > 0.99 and wide["street"] > 0.99, sentence="the model reads the article's sentence and "
                                                                              "its twin right")
    return {"accuracy": accuracy(model.heldout_accuracy), "learned_step": str(learned),
            "start_accuracy": accuracy(h.heldout_accuracy[0]), "loss_start": number(h.loss[0]),
            "loss_end": f"{h.loss[-1]:.1g}",
            "p_animal": percent(tired["animal"]), "p_street": percent(wide["street"])}


def _top(row: np.ndarray, words: list[str]) -> tuple[str, str]:
    j = int(np.argmax(row))
    return words[j], weight(row[j])


def _snapshots() -> list[dict[str, str]]:
    """Where "it" looks most, per layer, at each snapshot step, in the article's sentence and its twin."""
    h = models()["baseline"].history
    tired, wide = s.tokens(s.ARTICLE_SENTENCE), s.tokens(s.ARTICLE_TWIN)
    it = tired.index("it")
    rows = []
    for i, step in enumerate(h.snapshot_steps):
        row = {"step": str(int(step))}
        for layer in range(h.article_attention.shape[1]):
            row[f"tired_{layer + 1}"], row[f"tired_{layer + 1}_w"] = _top(h.article_attention[i, layer, it], tired)
            row[f"wide_{layer + 1}"], row[f"wide_{layer + 1}_w"] = _top(h.twin_attention[i, layer, it], wide)
        rows.append(row)
    return rows


def _where_it_looks() -> dict[str, Any]:
    """The layer-2 finding: "it" is resolved without "it" attending to its referent."""
    model = models()["baseline"]
    words = s.tokens(s.ARTICLE_SENTENCE)
    it, animal, street, adjective = (words.index(w) for w in ("it", "animal", "street", "tired"))
    verb = words.index("cross")
    a = model.attention(s.ARTICLE_SENTENCE)  # (layers, n, n)
    twin = model.attention(s.ARTICLE_TWIN)
    ref = referent_attention(model)
    claims.require(bool(a[1, it, adjective] > 0.9 and a[1, it, animal] < 0.05 and twin[1, it, adjective] > 0.9),
                   sentence="in layer 2, 'it' puts almost all its weight on the adjective, almost none on 'animal'")
    claims.require(bool(a[0, it, verb] > 0.9), sentence="in layer 1, 'it' looks at 'cross'")
    claims.require(bool(np.all(ref.to_referent < 0.05) and np.all(ref.argmax_is_referent < 0.05)),
                   sentence="over the held-out sentences, 'it' gives its referent almost no weight in either layer")
    # Which words' layer-1 rows peak at the adjective: the words that carry it to "it" in layer 2.
    gatherers = [words[i] for i in range(len(words)) if i not in (it, adjective) and int(np.argmax(a[0, i])) == adjective]
    claims.require(len(gatherers) >= 2, sentence="several words of the article's sentence look at 'tired' in layer 1")
    held = s.corpus(heldout=True)
    rows = np.arange(len(held))
    held_w = model.attention_batch(held)  # (layers, B, n, n)
    peaks = held_w[:, rows, held.it].argmax(axis=2)  # (layers, B)
    vocabulary = np.array(s.VOCABULARY)
    common = []
    for layer in range(peaks.shape[0]):
        found, counts = np.unique(vocabulary[held.ids[rows, peaks[layer]]], return_counts=True)
        order = np.argsort(-counts, kind="stable")[:3]
        common.append([{"word": str(found[k]), "share": percent(counts[k] / len(held))} for k in order])
    return {"layer2_adjective": weight(a[1, it, adjective]), "layer2_animal": weight(a[1, it, animal]),
            "layer2_street": weight(a[1, it, street]), "twin_layer2_wide": weight(twin[1, it, adjective]),
            "layer1_cross": weight(a[0, it, verb]), "gatherers": gatherers,
            "referent": [accuracy(x) for x in ref.to_referent], "other": [accuracy(x) for x in ref.to_other],
            "referent_peak": [accuracy(x) for x in ref.argmax_is_referent], "common": common}


def _one_layer() -> dict[str, str]:
    model = models()["one layer"]
    claims.require(0.5 < model.heldout_accuracy <= 0.75, sentence="one layer does better than chance and no better than 3 of 4")
    return {"accuracy": accuracy(model.heldout_accuracy)}


def _scaling() -> dict[str, Any]:
    runs = {name: models()[name] for name in SCALES}
    one, sqrt, by_d = (runs[name] for name in SCALES)
    uniform = math.log(len(s.tokens(s.ARTICLE_SENTENCE)))
    entropy_start = {name: m.history.entropy[0].mean() for name, m in runs.items()}
    jac_start = {name: m.history.jacobian_norm[0].mean() for name, m in runs.items()}
    learned = {name: _first_step(m, LEARNED) for name, m in runs.items()}
    # Scale 1: the softmax starts saturated (rows near one-hot, small Jacobian), and it learns least.
    claims.require(entropy_start["scale 1"] < 0.25 * uniform and jac_start["scale 1"] < jac_start["scale 1/√d_k"],
                   sentence="with scale 1 the softmax starts saturated: low entropy and a smaller Jacobian than with 1/√d_k")
    # "the gradient does not get back to W_Q and W_K": the largest gradient at the scores stays smaller.
    claims.require(bool(one.history.score_gradient_norm.max() < sqrt.history.score_gradient_norm.max()),
                   sentence="with scale 1 less gradient gets through the softmax to W_Q and W_K than with 1/√d_k")
    claims.require(learned["scale 1"] is None and one.heldout_accuracy < sqrt.heldout_accuracy,
                   sentence="scale 1 never reaches 99% and ends below 1/√d_k (also the note on why-sqrt-dk.md)")
    # 1/d_k: starts nearly uniform and stays at chance for a while, then learns.
    claims.require(entropy_start["scale 1/d_k"] > 0.95 * uniform, sentence="with 1/d_k the attention starts almost uniform")
    chance_until = _at_chance_until(by_d)
    claims.require(learned["scale 1/√d_k"] is not None and learned["scale 1/d_k"] is not None
                   and chance_until >= learned["scale 1/√d_k"] and learned["scale 1/d_k"] > learned["scale 1/√d_k"],
                   sentence="1/d_k sits at chance past the step where 1/√d_k has learned the task, and learns it later "
                   "(also the note on why-sqrt-dk.md)")
    # The initialisation the three runs share: q = x·W_Q with unit-variance components, so q·k has variance d_k.
    o = sqrt.options
    start = init_parameters(np.random.default_rng(o.seed), d_model=o.d_model, d_k=o.d_k, n_layers=o.n_layers,
                            projections=o.projections)
    train = s.corpus(heldout=False)
    x = (start["embedding"][train.ids] + start["position"][: train.ids.shape[1]])[train.mask]  # (words, d_model)
    q0, k0 = x @ start["w_q1"], x @ start["w_k1"]  # (words, d_k)
    dots = (q0[:-1] * k0[1:]).sum(axis=1)  # q·k of neighbouring words
    claims.require(abs(q0.var() - 1) < 0.2 and abs(k0.var() - 1) < 0.2 and abs(dots.std() / math.sqrt(o.d_k) - 1) < 0.2,
                   sentence="at the start, q and k have unit-variance components and q·k a standard deviation near √d_k")
    h_one, h_sqrt = one.history, sqrt.history
    rows = []
    for k, step in enumerate(h_sqrt.eval_steps):
        rows.append({"step": str(int(step)), **{key: accuracy(runs[name].history.heldout_accuracy[k])
                                             for key, name in zip(("one", "sqrt", "d_k"), SCALES, strict=True)}})
    label = {"scale 1": "one", "scale 1/√d_k": "sqrt", "scale 1/d_k": "d_k"}
    out: dict[str, Any] = {"rows": rows, "chance_until": str(chance_until),
                           "sqrt_d_k": str(math.isqrt(LARGE_D_K)),
                           "score_sd": number(math.sqrt(LARGE_D_K)),
                           "q_var": number(q0.var()), "k_var": number(k0.var()), "dot_sd": number(dots.std(), 1)}
    for name, key in label.items():
        m = runs[name]
        out[key] = {"accuracy": accuracy(m.heldout_accuracy), "entropy_start": number(entropy_start[name]),
                    "entropy_end": number(m.history.entropy[-1].mean()), "jacobian_start": number(jac_start[name]),
                    "jacobian_end": number(m.history.jacobian_norm[-1].mean()),
                    "learned": "" if learned[name] is None else str(learned[name]),
                    "loss_end": number(m.history.loss[-1])}
    out["one_final_jacobian_smaller"] = bool(h_one.jacobian_norm[-1].mean() < h_sqrt.jacobian_norm[-1].mean())
    return out


def _tied() -> dict[str, Any]:
    model, baseline = models()["tied W_Q = W_K"], models()["baseline"]
    p = model.parameters
    words = s.tokens(s.ARTICLE_SENTENCE)
    x = p["embedding"][[s.VOCABULARY.index(w) for w in words]] + p["position"][: len(words)]
    w_q, w_k = (p["w_qk1"], p["w_qk1"]) if "w_qk1" in p else (p["w_q1"], p["w_k1"])  # one shared matrix when tied
    scores = (x @ w_q) @ (x @ w_k).T  # layer 1's scores before scaling, (n, n): symmetric when W_Q = W_K
    a = model.attention(s.ARTICLE_SENTENCE)
    held = s.corpus(heldout=True)
    tied_w, base_w = model.attention_batch(held), baseline.attention_batch(held)
    mask = held.mask
    diagonal = [float(np.mean([tw[b].diagonal()[mask[b]].mean() for b in range(len(held))])) for tw in tied_w]
    base_diagonal = [float(np.mean([bw[b].diagonal()[mask[b]].mean() for b in range(len(held))])) for bw in base_w]
    claims.require(0.5 + CHANCE_BAND < model.heldout_accuracy < baseline.heldout_accuracy and _first_step(model, LEARNED) is None,
                   sentence="tied W_Q = W_K learns the task only partly: better than chance, never 99%, worse than separate "
                            "matrices "
                   "(also the note on why-three-matrices.md)")
    claims.require(asymmetry(scores) < 1e-9 * np.abs(scores).max() and asymmetry(a[0]) > 0.1,
                   sentence="the tied scores are symmetric, the weights after softmax are not (also the note on asymmetry.md)")
    claims.require(all(t > 2 * b for t, b in zip(diagonal, base_diagonal, strict=True)),
                   sentence="with W_Q = W_K each word gives itself far more weight than with separate matrices (also "
                            "why-three-matrices.md)")
    return {"accuracy": accuracy(model.heldout_accuracy),
            "scores_asymmetry": number(asymmetry(scores)), "weights_asymmetry": number(asymmetry(a[0])),
            "self": [percent(d) for d in diagonal], "base_self": [percent(d) for d in base_diagonal]}


def _no_projections() -> dict[str, Any]:
    model = models()["no projections"]
    h = model.history
    held = s.corpus(heldout=True)
    rows = np.arange(len(held))
    weights = model.attention_batch(held)
    it_self = weights[:, rows, held.it, held.it].mean(axis=1)  # (layers,)
    p_animal = np.array([next(iter(model.probabilities(text).values())) for text in held.text])  # P(the animal)
    spread = float(p_animal.max() - p_animal.min())
    claims.require(abs(model.heldout_accuracy - 0.5) <= CHANCE_BAND, sentence="without projections the model stays at chance")
    claims.require(bool(np.all(it_self > 0.5)) and spread < 0.2,
                   sentence="'it' attends mostly to itself and its answer barely moves from sentence to sentence "
                   "(also the note on why-three-matrices.md)")
    o = model.options
    return {"accuracy": accuracy(model.heldout_accuracy), "it_self": [percent(x) for x in it_self],
            "p_min": percent(p_animal.min()), "p_max": percent(p_animal.max()),
            "self_score": number(o.d_model * o.scale), "entropy_start": [number(e) for e in h.entropy[0]]}


EXERCISE_1 = ("because it was too icy the street didn't tempt the cat",
              "because it was too sleepy the street didn't tempt the cat")


def _exercise_1() -> list[dict[str, str]]:
    """Where "it" looks in layer 1 and layer 2 of two sentences of the second pair of frames."""
    model = models()["baseline"]
    rows = []
    for sentence in EXERCISE_1:
        words = model.tokens(sentence)
        a = model.attention(sentence)[:, words.index("it")]  # (layers, n)
        p = model.probabilities(sentence)
        resolved = model.resolve(sentence)
        row = {"sentence": sentence, "resolved": resolved, "p": percent(p[resolved])}
        for layer in range(a.shape[0]):
            row[f"top_{layer + 1}"], row[f"top_{layer + 1}_w"] = words[int(np.argmax(a[layer]))], f"{a[layer].max():.2f}"
        row["to_referent"] = f"{a[:, words.index(resolved)].max():.2f}"
        claims.require(row["top_1"] == "too", sentence="layer-1 'it' looks at 'too', the word next to the adjective")
        rows.append(row)
    icy, sleepy = rows
    claims.require(icy["resolved"] == "street" and sleepy["resolved"] == "cat", sentence="the model resolves both sentences "
                                                                                         "right")
    claims.require(all(float(r["to_referent"]) < 0.05 for r in rows), sentence="neither 'it' gives its referent more than "
                                                                               "5% in any layer")
    return rows


EXERCISE_2 = tuple(frame.format(animal="animal", place="street", adjective=adjective)
                   for frame in s.FRAMES[:2] for adjective in ("tired", "wide"))


def _exercise_2() -> dict[str, Any]:
    """The one-layer model on the four sentences of one animal, one place and two adjectives in the first pair of frames."""
    one, two = models()["one layer"], models()["baseline"]
    truth = ["animal", "street", "animal", "street"]
    one_right = sum(one.resolve(x) == answer for x, answer in zip(EXERCISE_2, truth, strict=True))
    two_right = sum(two.resolve(x) == answer for x, answer in zip(EXERCISE_2, truth, strict=True))
    claims.require(one_right <= 3 and two_right == 4, sentence="one layer gets at most 3 of the 4, two layers get all 4")
    return {"one_right": str(one_right), "two_right": str(two_right), "n": str(len(EXERCISE_2))}


@cache
def values(project: Project) -> dict[str, Any]:
    claims.require(set(SCALES) <= set(EXPERIMENTS), sentence="the scaling experiment's three runs are experiments of "
                                                             "qkv.learning")
    return {"task": _task(), "baseline": _baseline(), "snapshots": _snapshots(), "looks": _where_it_looks(),
            "one_layer": _one_layer(), "scaling": _scaling(), "tied": _tied(), "no_projections": _no_projections(),
            "exercise_1": _exercise_1(), "exercise_2": _exercise_2()}
