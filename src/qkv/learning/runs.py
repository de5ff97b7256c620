"""Every run the learned-attention results report, and the plain record kept of each (what the results JSON holds).

`RUNS` names each run: its task and its options (the experiments of `EXPERIMENTS` with Adam, the
baseline and the scaling experiment again with plain SGD, and the referent task). `record(name,
seed)` trains one and returns a JSON-ready dict of numbers, floats rounded to 6 significant digits:

- `eval_steps`, `accuracy`, `heldout_loss`: the held-out curve; `correct`/`total`: the final count;
  `final`, `max`, `first_99` (the first evaluation step at ≥ 99 %, or None) and `min_after_99`
  (the lowest accuracy from then on: "first reaches 99 % at step s, then moves between a and b");
- `loss`: the batch loss averaged over windows of `WINDOW` steps; for the scaling runs (d_k = 64)
  also `entropy` and `jacobian`, the mean attention entropy and softmax-Jacobian norm (averaged
  over layers) in the same windows; `entropy_start`,
  `jacobian_start` at step 0; `score_gradient_max` per layer;
- `attention` over the held-out sentences, per layer: the mean weight from "it" to its referent,
  to the other candidate(s), the share of rows peaking at the referent, "it"'s weight on itself and
  every word's weight on itself (the diagonal);
- `probes`: the article's sentence and its twin: the answer, P(right), "it"'s raw row per layer
  and its rollout row (weights to 6 decimals); for the baseline and the referent task (`CAUSAL`)
  `ablation` on the held-out sentences and on the two probes, per layer choice ("1", "2", "all");
  for the referent task `by_kind` (held-out counts per kind of novelty); for those two also
  `snapshots`, "it"'s row per layer in the two probes at the history's snapshot steps;
- `w_q_norm`: ‖W_Q‖ per layer at the start and the end (W_QK when tied, empty without projections);
  for the first task `p_animal_range`, the lowest and highest P(the animal) over the held-out set.

A run that overflows is recorded as `{"diverged_at": step}`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from qkv.learning import referent_sentences as r
from qkv.learning import sentences as s
from qkv.learning.ablation import ablate
from qkv.learning.experiments import EXPERIMENTS
from qkv.learning.network import init_parameters
from qkv.learning.referent import train_referent
from qkv.learning.rollout import rollout
from qkv.learning.training import CoreferenceModel, TrainingDiverged, train_coreference

LEARNED = 0.99  # held-out accuracy from which a run counts as having learned the task
WINDOW = 10  # steps per point of the per-step curves kept
SGD_SCALING = ("baseline", "scale 1", "scale 1/√d_k", "scale 1/d_k")

RUNS: dict[str, tuple[str, dict[str, Any]]] = {
    **{name: ("coreference", options) for name, options in EXPERIMENTS.items()},
    **{f"SGD {name}": ("coreference", {**EXPERIMENTS[name], "optimizer": "sgd"}) for name in SGD_SCALING},
    "referent": ("referent", {}),
}
CAUSAL = ("baseline", "referent")  # the runs whose records include ablation


def train_run(name: str, seed: int) -> CoreferenceModel:
    """The model of run `name` (a key of `RUNS`) with `seed` (cached per process, as every training)."""
    if name not in RUNS:
        raise ValueError(f"unknown run {name!r}; the runs are {list(RUNS)}")
    task, options = RUNS[name]
    return train_referent(seed, **options) if task == "referent" else train_coreference(seed, **options)


def rounded(x: Any) -> Any:
    """Floats (also inside lists and dicts) to 6 significant digits; everything else as it is."""
    if isinstance(x, dict):
        return {key: rounded(value) for key, value in x.items()}
    if isinstance(x, (list, tuple)):
        return [rounded(value) for value in x]
    if isinstance(x, (float, np.floating)):
        return float(f"{float(x):.6g}")
    if isinstance(x, np.integer):
        return int(x)
    return x


def _windows(values: np.ndarray) -> list[float]:
    """Means over consecutive windows of WINDOW steps (the last may be shorter)."""
    return [float(values[i : i + WINDOW].mean()) for i in range(0, len(values), WINDOW)]


def probe_batch(model: CoreferenceModel) -> s.Sentences:
    """The article's sentence and its twin, labelled: "it" is the animal, then the street."""
    if model.task.outputs is None:
        return s.batch([s.ARTICLE_SENTENCE, s.ARTICLE_TWIN], [s.ANIMAL, s.PLACE])
    return r.batch([s.ARTICLE_SENTENCE, s.ARTICLE_TWIN], ["animal", "street"])


def _attention(model: CoreferenceModel) -> dict[str, list[float]]:
    batch = model.task.heldout()
    rows = np.arange(len(batch))
    referent = model.referents(batch)
    weights = model.attention_batch(batch)  # (L, B, n, n)
    it_rows = weights[:, rows, batch.it]  # (L, B, n)
    to_referent = it_rows[:, rows, referent]  # (L, B)
    real = batch.mask.sum(axis=1)  # (B,)
    to_it = it_rows[:, rows, batch.it]
    to_others = it_rows.sum(axis=2) - to_referent - to_it  # every other real word
    diagonal = np.diagonal(weights, axis1=2, axis2=3)  # (L, B, n)
    return {
        "to_referent": to_referent.mean(axis=1).tolist(),
        "to_other_words": (to_others / (real - 2)).mean(axis=1).tolist(),  # mean weight per other word
        "peak_at_referent": (it_rows.argmax(axis=2) == referent).mean(axis=1).tolist(),
        "it_to_itself": to_it.mean(axis=1).tolist(),
        "self": [float(d[batch.mask].mean()) for d in diagonal],
    }


def _ablations(model: CoreferenceModel, batch: s.Sentences | None) -> dict[str, Any]:
    out = {}
    for key, layers in (("1", (1,)), ("2", (2,)), ("all", None)):
        a = ablate(model, batch, layers=layers)
        out[key] = {"intact": a.intact, "referent_removed": a.referent_removed, "control_removed": a.control_removed,
                    "total": a.total, "referent_weight": a.referent_weight, "control_weight": a.control_weight,
                    "p_right": list(a.p_right)}
    return out


def _w_q_norms(model: CoreferenceModel) -> dict[str, list[float]]:
    """‖W_Q‖ (Frobenius) of each layer at the start (the seed's initialisation) and after training; [] without W_Q."""
    o = model.options
    names = [f"w_q{layer}" if o.projections == "separate" else f"w_qk{layer}" for layer in range(1, o.n_layers + 1)]
    if o.projections == "none":
        return {"start": [], "end": []}
    start = init_parameters(np.random.default_rng(o.seed), d_model=o.d_model, d_k=o.d_k, n_layers=o.n_layers,
                            projections=o.projections, vocabulary_size=len(model.task.vocabulary),
                            max_length=model.task.max_length)
    return {"start": [float(np.linalg.norm(start[n])) for n in names],
            "end": [float(np.linalg.norm(model.parameters[n])) for n in names]}


def _weights(array: np.ndarray) -> Any:
    """Attention weights to 6 decimals (a weight of 1e-18 is kept as 0.0: the page prints at most 3)."""
    return np.round(array, 6).tolist()


def _probes(model: CoreferenceModel) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, sentence, answer in (("tired", s.ARTICLE_SENTENCE, "animal"), ("wide", s.ARTICLE_TWIN, "street")):
        words = model.tokens(sentence)
        it = words.index("it")
        p = model.probabilities(sentence)
        out[key] = {"tokens": words, "answer": model.resolve(sentence), "p_right": p[answer],
                    "raw": _weights(model.attention(sentence)[:, it]), "rollout": _weights(rollout(model, sentence)[-1, it])}
    return out


def summary(model: CoreferenceModel) -> dict[str, Any]:
    """The record of a trained model (see the module's docstring), unrounded."""
    h = model.history  # a ValueError for a model loaded from saved parameters
    acc = h.heldout_accuracy
    reached = np.flatnonzero(acc >= LEARNED)
    heldout = model.task.heldout()
    correct = model.correct(heldout)
    out: dict[str, Any] = {
        "options": dataclasses.asdict(model.options),
        "eval_steps": h.eval_steps.tolist(), "accuracy": acc.tolist(), "heldout_loss": h.heldout_loss.tolist(),
        "correct": int(correct.sum()), "total": len(heldout), "final": float(acc[-1]), "max": float(acc.max()),
        "first_99": int(h.eval_steps[reached[0]]) if reached.size else None,
        "min_after_99": float(acc[reached[0]:].min()) if reached.size else None,
        "loss": _windows(h.loss),
        "entropy_start": float(h.entropy[0].mean()), "jacobian_start": float(h.jacobian_norm[0].mean()),
        "score_gradient_max": h.score_gradient_norm.max(axis=0).tolist(),
        "attention": _attention(model), "probes": _probes(model),
    }
    out["w_q_norm"] = _w_q_norms(model)
    if model.task.outputs is None:  # how far the answer moves between sentences: P(the animal), lowest and highest
        p_animal = model.forward(heldout).probabilities[:, s.ANIMAL]
        out["p_animal_range"] = [float(p_animal.min()), float(p_animal.max())]
    if model.options.n_layers == 2 and model.options.optimizer == "adam" and model.options.projections == "separate" \
            and model.options.d_k == model.options.d_model:  # the baseline and the referent task: the causal tests
        out["ablation"] = _ablations(model, None)
        out["probes"]["ablation"] = _ablations(model, probe_batch(model))  # does either sentence's answer change?
        it = s.tokens(s.ARTICLE_SENTENCE).index("it")
        out["snapshots"] = {"steps": h.snapshot_steps.tolist(),  # "it"'s row per layer at each snapshot step
                            "tired": _weights(h.article_attention[:, :, it]), "wide": _weights(h.twin_attention[:, :, it])}
    if model.options.d_k != model.options.d_model:  # the scaling experiment's runs: what its figure draws
        out["entropy"] = _windows(h.entropy.mean(axis=1))
        out["jacobian"] = _windows(h.jacobian_norm.mean(axis=1))
    if model.task.name == "referent":
        kinds = np.array(r.corpus(heldout=True).kinds)
        out["by_kind"] = {kind: {"correct": int(correct[kinds == kind].sum()), "total": int((kinds == kind).sum())}
                          for kind in ("referent", "pair", "both")}
    return out


def record(name: str, seed: int) -> dict[str, Any]:
    """Train run `name` with `seed` and return its record, rounded (or `{"diverged_at": step}`).

    The options are left out (they are the run's, `RUNS[name]`, with `seed`)."""
    try:
        model = train_run(name, seed)
    except TrainingDiverged as error:
        return {"diverged_at": error.step}
    kept = dict(rounded(summary(model)))
    del kept["options"]
    return kept
