"""`train_coreference`: train the two-layer transformer on the sentences and keep its history."""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from qkv._checks import check_int, check_positive_int
from qkv.learning import sentences as s
from qkv.learning.adam import Adam
from qkv.learning.network import PROJECTIONS, Edit, Forward, Parameters, backward, forward, init_parameters
from qkv.learning.sgd import SGD
from qkv.learning.tasks import TASKS, Task

OPTIMIZERS: tuple[str, ...] = ("adam", "sgd")
# The default learning rate of each optimiser. SGD's was chosen as the largest of 0.1, 0.3, 0.5, 1 and 3
# at which neither the baseline nor a run of the scaling experiment overflows in seeds 0-4 (300 steps):
# at 3 the baseline overflows (seed 0); at 1 it learns (held-out 94-100 %) but the d_k = 64 runs overflow
# (scale 1 in seeds 0, 3, 4; 1/√d_k in seeds 0, 2); at 0.5 nothing overflows and the baseline ends at
# 88-100 % (97-100 % in 4 of 5 seeds); at 0.3 at 87-100 %; at 0.1 it stays at 55-72 %.
LEARNING_RATES: dict[str, float] = {"adam": 0.01, "sgd": 0.5}


class TrainingDiverged(ValueError):
    """The parameters overflowed during training (the loss or the scores stopped being finite)."""

    def __init__(self, step: int, options: Options) -> None:
        super().__init__(f"training diverged at step {step}: the scores or the loss are no longer finite "
                         f"(options {options}); try a smaller learning_rate")
        self.step = step


@dataclass(frozen=True)
class Options:
    """Everything a training run depends on, checked and complete (`make_options` fills in the defaults)."""

    seed: int
    d_model: int
    d_k: int
    n_layers: int
    projections: str
    scale: float
    steps: int
    batch_size: int
    learning_rate: float
    optimizer: str = "adam"
    task: str = "coreference"


def _positive_float(value: Any, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"{name} must be finite and > 0, got {number}")
    return number


def make_options(
    seed: Any = 0,
    *,
    d_model: Any = 24,
    d_k: Any = None,
    n_layers: Any = 2,
    projections: Any = "separate",
    scale: Any = None,
    steps: Any = 300,
    batch_size: Any = 64,
    learning_rate: Any = None,
    optimizer: Any = "adam",
    task: Any = "coreference",
) -> Options:
    """Check the options and fill in the defaults that depend on others (d_k = d_model, scale = 1/√d_k,
    learning_rate = the optimiser's own: `LEARNING_RATES`)."""
    seed = check_int(seed, "seed", minimum=0)
    d_model = check_positive_int(d_model, "d_model")
    if not isinstance(projections, str):
        raise TypeError(f"projections must be a str, one of {PROJECTIONS}, got {projections!r}")
    if projections not in PROJECTIONS:
        raise ValueError(f"projections must be one of {PROJECTIONS}, got {projections!r}")
    if not isinstance(task, str) or task not in TASKS:
        raise ValueError(f"task must be one of {tuple(TASKS)}, got {task!r}")
    if not isinstance(optimizer, str):
        raise TypeError(f"optimizer must be a str, one of {OPTIMIZERS}, got {optimizer!r}")
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {optimizer!r}")
    d_k = d_model if d_k is None else check_positive_int(d_k, "d_k")
    if projections == "none" and d_k != d_model:
        raise ValueError(f'projections="none" uses Q = K = X, so d_k is d_model = {d_model}, got d_k={d_k}')
    return Options(
        seed=seed,
        d_model=d_model,
        d_k=d_k,
        n_layers=check_positive_int(n_layers, "n_layers"),
        projections=projections,
        scale=1.0 / math.sqrt(d_k) if scale is None else _positive_float(scale, "scale"),
        steps=check_positive_int(steps, "steps"),
        batch_size=check_positive_int(batch_size, "batch_size"),
        learning_rate=LEARNING_RATES[optimizer] if learning_rate is None else _positive_float(learning_rate, "learning_rate"),
        optimizer=optimizer,
        task=task,
    )


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False  # results may be shared through the cache: nobody may change them
    return array


@dataclass(frozen=True, eq=False)
class TrainingHistory:
    """What happened during training, as plain numpy arrays (steps count the updates, from 0).

    Per step t (before update t, on that step's batch; one column per layer in the 2-D ones):

    - `loss` (steps,): the batch's mean cross-entropy; `batch_accuracy` (steps,): its share resolved right;
    - `entropy` (steps, n_layers): the mean entropy (nats) of the attention rows of real words;
      log(n) ≈ 2.4 is uniform attention over 11 words, 0 is one-hot;
    - `score_gradient_norm` (steps, n_layers): ‖∂loss/∂scores‖ (Frobenius, whole batch): the
      gradient that gets through the softmax to W_Q and W_K;
    - `jacobian_norm` (steps, n_layers): the mean over real rows of ‖diag(a) − a·aᵀ‖ (Frobenius),
      the softmax's Jacobian; it is 0 for one-hot rows (saturated) and largest for spread ones.

    At `eval_steps` (every steps/10 updates, and after the last): `heldout_accuracy` and
    `heldout_loss` over all the held-out sentences. At `snapshot_steps`: each layer's
    weights on the article's sentence (`article_attention`, (snapshots, n_layers, 11, 11)) and on
    its "wide" twin (`twin_attention`), rows and columns in the sentence's token order.
    """

    loss: np.ndarray
    batch_accuracy: np.ndarray
    entropy: np.ndarray
    score_gradient_norm: np.ndarray
    jacobian_norm: np.ndarray
    eval_steps: np.ndarray
    heldout_accuracy: np.ndarray
    heldout_loss: np.ndarray
    snapshot_steps: np.ndarray
    article_attention: np.ndarray
    twin_attention: np.ndarray


def _row_statistics(fwd: Forward) -> tuple[np.ndarray, np.ndarray]:
    """Mean entropy and mean softmax-Jacobian norm of every layer's attention rows at real words."""
    real = fwd.batch.mask  # (B, n): rows of padding are not counted
    entropies, jacobians = [], []
    for layer in fwd.layers:
        a = layer.weights  # (B, n, n)
        with np.errstate(divide="ignore", invalid="ignore"):
            plogp = np.where(a > 0, a * np.log(a), 0.0)
        entropies.append((-plogp.sum(axis=-1))[real].mean())
        a2 = (a * a).sum(axis=-1)  # ‖diag(a) − aaᵀ‖² = Σa² − 2Σa³ + (Σa²)²
        jacobian = np.sqrt(np.maximum(a2 - 2.0 * (a**3).sum(axis=-1) + a2 * a2, 0.0))
        jacobians.append(jacobian[real].mean())
    return np.array(entropies), np.array(jacobians)


class CoreferenceModel:
    """A trained model of either task: `tokens`, `resolve` and `attention` for any sentence of its vocabulary.

    A model built from saved parameters (`qkv.learning.saved.load_model`) has no `history`
    (`trained` is False, and reading `history` raises a ValueError).
    """

    def __init__(self, options: Options, parameters: Parameters, history: TrainingHistory | None) -> None:
        self.options = options
        self.task: Task = TASKS[options.task]
        # Read-only all the way down: the cached model is shared by every caller of the same options.
        self.parameters: Mapping[str, np.ndarray] = MappingProxyType({name: _frozen(value) for name, value in parameters.items()})
        self._history = history

    @property
    def trained(self) -> bool:
        """Whether this model was trained in this process (and so has a `history`)."""
        return self._history is not None

    @property
    def history(self) -> TrainingHistory:
        """What happened during training; a ValueError for a model loaded from saved parameters."""
        if self._history is None:
            raise ValueError("this model was loaded from saved parameters: it has no training history")
        return self._history

    def __repr__(self) -> str:
        return f"CoreferenceModel({self.options}, held-out accuracy {self.heldout_accuracy:.3f})"

    @functools.cached_property
    def heldout_accuracy(self) -> float:
        """The share of held-out sentences whose "it" the trained model resolves right."""
        if self._history is not None:
            return float(self._history.heldout_accuracy[-1])
        return self.accuracy(self.task.heldout())

    def tokens(self, sentence: str) -> list[str]:
        """The words the model reads (lower-case, no punctuation): the rows and columns of `attention`."""
        return self.task.tokens(sentence)

    def batch(self, sentences: list[str]) -> s.Sentences:
        """`sentences` encoded for this model's task (for inference: the labels are placeholders)."""
        return self.task.batch(sentences)

    def forward(self, batch: s.Sentences, *, edit: Edit | None = None) -> Forward:
        """The model's forward pass on `batch`; `edit(layer, weights)` may change each layer's weights."""
        o = self.options
        return forward(self.parameters, batch, n_layers=o.n_layers, projections=o.projections, scale=o.scale,
                       outputs=self.task.output_ids, edit=edit)

    def probabilities(self, sentence: str) -> dict[str, float]:
        """The readout's probabilities keyed by word: the two candidates (first task) or every noun (referent task)."""
        p = self.forward(self.batch([sentence])).probabilities[0]
        if self.task.outputs is not None:
            return {word: float(x) for word, x in zip(self.task.outputs, p, strict=True)}
        encoded = s.encode(sentence)
        words = s.tokens(sentence)
        return {words[encoded.candidates[0]]: float(p[0]), words[encoded.candidates[1]]: float(p[1])}

    def resolve(self, sentence: str) -> str:
        """The word "it" refers to, as the model reads the sentence (referent task: the likeliest noun of all)."""
        p = self.probabilities(sentence)
        return max(p, key=lambda word: p[word])

    def attention(self, sentence: str) -> np.ndarray:
        """(n_layers, n, n): each layer's attention weights, rows and columns in `tokens(sentence)` order."""
        return np.stack([layer.weights[0] for layer in self.forward(self.batch([sentence])).layers])

    def attention_batch(self, batch: s.Sentences) -> np.ndarray:
        """(n_layers, B, n, n): each layer's weights for a batch of sentences (padding keys get 0)."""
        return np.stack([layer.weights for layer in self.forward(batch).layers])

    def correct(self, batch: s.Sentences, *, edit: Edit | None = None) -> np.ndarray:
        """(B,) bool: which sentences of `batch` the model resolves right (with `edit` applied, if given)."""
        right: np.ndarray = self.forward(batch, edit=edit).probabilities.argmax(axis=1) == batch.labels
        return right

    def accuracy(self, batch: s.Sentences) -> float:
        """The share of `batch` resolved right."""
        return float(self.correct(batch).mean())

    def referents(self, batch: s.Sentences) -> np.ndarray:
        """(B,) the position of each sentence's referent (from its label)."""
        if self.task.outputs is None:
            positions: np.ndarray = batch.candidates[np.arange(len(batch)), batch.labels]
            return positions
        return batch.candidates[:, 0]


def _evaluate(params: Parameters, o: Options, batch: s.Sentences, outputs: np.ndarray | None) -> tuple[float, float]:
    fwd = forward(params, batch, n_layers=o.n_layers, projections=o.projections, scale=o.scale, outputs=outputs)
    return float((fwd.probabilities.argmax(axis=1) == batch.labels).mean()), fwd.loss


@functools.cache
def _train(o: Options) -> CoreferenceModel:
    task = TASKS[o.task]
    outputs = task.output_ids
    rng = np.random.default_rng(o.seed)
    params = init_parameters(rng, d_model=o.d_model, d_k=o.d_k, n_layers=o.n_layers, projections=o.projections,
                             vocabulary_size=len(task.vocabulary), max_length=task.max_length)
    rate = o.learning_rate
    optimizer = Adam(params, learning_rate=rate) if o.optimizer == "adam" else SGD(params, learning_rate=rate)
    train, heldout = task.train(), task.heldout()
    probes = task.batch(list(task.probes))
    eval_every = max(1, o.steps // 10)
    snapshot_steps = sorted({0, o.steps // 20, o.steps // 5, o.steps // 2, o.steps})
    loss, batch_accuracy, entropy, score_norm, jacobian = [], [], [], [], []
    evals: list[tuple[int, float, float]] = []
    snapshots = []
    order = rng.permutation(len(train))
    cursor = 0
    for step in range(o.steps + 1):
        if step % eval_every == 0 or step == o.steps:
            try:
                evals.append((step, *_evaluate(params, o, heldout, outputs)))
            except ValueError as error:  # the last update overflowed: softmax refuses the scores
                raise TrainingDiverged(step, o) from error
        if step in snapshot_steps:
            probe = forward(params, probes, n_layers=o.n_layers, projections=o.projections, scale=o.scale,
                            outputs=outputs)
            snapshots.append(np.stack([layer.weights for layer in probe.layers], axis=1))  # (2, n_layers, n, n)
        if step == o.steps:
            break
        if cursor + o.batch_size > len(train):  # a new shuffled pass over the training sentences
            order, cursor = rng.permutation(len(train)), 0
        rows = order[cursor : cursor + o.batch_size]
        cursor += o.batch_size
        try:
            with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported as divergence, below
                fwd = forward(params, train.subset(rows), n_layers=o.n_layers, projections=o.projections,
                              scale=o.scale, outputs=outputs)
        except ValueError as error:  # softmax refuses scores that are no longer finite
            raise TrainingDiverged(step, o) from error
        if not math.isfinite(fwd.loss):
            raise TrainingDiverged(step, o)
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow here shows as divergence at the next step
            back = backward(params, fwd, projections=o.projections)
            score_norm.append([float(np.sqrt((g * g).sum())) for g in back.score_grads])
        row_entropy, row_jacobian = _row_statistics(fwd)
        loss.append(fwd.loss)
        batch_accuracy.append(float((fwd.probabilities.argmax(axis=1) == fwd.batch.labels).mean()))
        entropy.append(row_entropy)
        jacobian.append(row_jacobian)
        with np.errstate(over="ignore", invalid="ignore"):
            optimizer.step(params, back.grads)
    snapshot_array = np.array(snapshots)  # (snapshots, 2, n_layers, n, n)
    history = TrainingHistory(
        loss=_frozen(np.array(loss)),
        batch_accuracy=_frozen(np.array(batch_accuracy)),
        entropy=_frozen(np.array(entropy)),
        score_gradient_norm=_frozen(np.array(score_norm)),
        jacobian_norm=_frozen(np.array(jacobian)),
        eval_steps=_frozen(np.array([e[0] for e in evals])),
        heldout_accuracy=_frozen(np.array([e[1] for e in evals])),
        heldout_loss=_frozen(np.array([e[2] for e in evals])),
        snapshot_steps=_frozen(np.array(snapshot_steps)),
        article_attention=_frozen(np.ascontiguousarray(snapshot_array[:, 0])),
        twin_attention=_frozen(np.ascontiguousarray(snapshot_array[:, 1])),
    )
    return CoreferenceModel(o, params, history)


def train_coreference(seed: Any = 0, **options: Any) -> CoreferenceModel:
    """Train the model (see `qkv.learning`) and return it with its `history`.

    A pure function of its arguments: the same arguments give the same bits on one machine (float64,
    one seeded numpy Generator for the initialisation and the batches). A second call with the same
    arguments in one process returns the same, read-only, model.

    Options (keyword-only): d_model=24, d_k=d_model, n_layers=2, projections="separate" ("tied":
    W_Q = W_K; "none": Q = K = V = X), scale=1/√d_k, steps=300, batch_size=64, optimizer="adam"
    ("sgd": plain SGD), learning_rate=0.01 with Adam, 0.5 with SGD (`LEARNING_RATES`). Raises
    `TrainingDiverged` (a ValueError) if the parameters overflow.
    """
    return _train(make_options(seed, **options))
