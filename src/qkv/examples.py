"""The article's own material: the "I love" worked example and small hand-built illustrations."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from qkv.attention import attention_scores, scaled_dot_product_attention
from qkv.projections import cross_attention, project, self_attention
from qkv.softmax import softmax

# The article gives X and W_Q. It only shows the resulting K and V, so W_K and W_V are ours:
# X·W adds rows 0+2 of W for "I" = [1, 0, 1, 0] and rows 1+3 for "love" = [0, 1, 0, 1].
_I_LOVE = ("I", "love")
_X = ((1, 0, 1, 0), (0, 1, 0, 1))
_W_Q = ((1, 0, 1), (0, 1, 0), (1, 0, 0), (0, 1, 1))
_W_K = ((1, 0, 0), (0, 1, 0), (0, 1, 0), (0, 0, 1))  # -> K = [[1, 1, 0], [0, 1, 1]]
_W_V = ((1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 0))  # -> V = [[1, 0, 1], [0, 1, 0]]


def _readonly(value: ArrayLike) -> np.ndarray:
    # Frozen dataclasses should hold arrays nobody can change behind the properties' back.
    array = np.array(value)
    array.setflags(write=False)
    return array


def _check_labels(labels: tuple[str, ...], n: int, name: str, what: str) -> None:
    if len(labels) != n:
        raise ValueError(f"{name} has {len(labels)} labels but {what} has {n} rows")


def _check_table(x: np.ndarray, name: str) -> None:
    # One row per token: batches make no sense for a labelled example.
    if x.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix (n, d_model), got shape {x.shape}")


def _row_of(token: str, tokens: tuple[str, ...]) -> int:
    if token not in tokens:
        raise ValueError(f"{token!r} is not one of the tokens {tokens}")
    return tokens.index(token)


@dataclass(frozen=True, eq=False)
class SoftmaxWalkthrough:
    """One row of softmax done by hand: rounded scores, e^score, their sum, and each weight."""

    scores: np.ndarray
    exps: np.ndarray
    total: float
    weights: np.ndarray


@dataclass(frozen=True, eq=False)
class WorkedExample:
    """The article's two-token example, "I love", with every intermediate matrix as a property.

    Fields are the inputs (`tokens`, `x`, `w_q`, `w_k`, `w_v`); everything else is computed
    from them with the public functions, so changing an input changes every step.
    The article gives X and W_Q; W_K and W_V are small integer matrices of ours chosen so
    that X·W_K and X·W_V are exactly the K and V the article assumes:

    >>> ex = worked_example()
    >>> ex.w_k
    array([[1, 0, 0],
           [0, 1, 0],
           [0, 1, 0],
           [0, 0, 1]])
    >>> ex.x @ ex.w_k
    array([[1, 1, 0],
           [0, 1, 1]])
    >>> ex.w_v
    array([[1, 0, 0],
           [0, 1, 0],
           [0, 0, 1],
           [0, 0, 0]])
    >>> ex.x @ ex.w_v
    array([[1, 0, 1],
           [0, 1, 0]])
    >>> ex.scores
    array([[2., 1.],
           [2., 3.]])
    >>> ex.weights.round(2)
    array([[0.64, 0.36],
           [0.36, 0.64]])
    """

    tokens: tuple[str, ...]
    x: np.ndarray  # (n, d_model), one row per token
    w_q: np.ndarray  # (d_model, d_k)
    w_k: np.ndarray  # (d_model, d_k)
    w_v: np.ndarray  # (d_model, d_v)

    def __post_init__(self) -> None:
        for name in ("x", "w_q", "w_k", "w_v"):
            object.__setattr__(self, name, _readonly(getattr(self, name)))
        object.__setattr__(self, "tokens", tuple(self.tokens))
        _check_table(self.x, "x")
        _check_labels(self.tokens, self.x.shape[0], "tokens", "x")
        self_attention(self.x, self.w_q, self.w_k, self.w_v)  # fail now, not at the first property

    @property
    def d_k(self) -> int:
        """Width of queries and keys (3 in the article)."""
        return int(self.w_q.shape[1])

    @property
    def q(self) -> np.ndarray:
        """Q = X·W_Q, (n, d_k)."""
        return project(self.x, self.w_q)

    @property
    def k(self) -> np.ndarray:
        """K = X·W_K, (n, d_k)."""
        return project(self.x, self.w_k)

    @property
    def v(self) -> np.ndarray:
        """V = X·W_V, (n, d_v)."""
        return project(self.x, self.w_v)

    @property
    def scores(self) -> np.ndarray:
        """Q·Kᵀ, unscaled, (n, n)."""
        return attention_scores(self.q, self.k, scale=1.0)

    @property
    def scaled_scores(self) -> np.ndarray:
        """Q·Kᵀ/√d_k, (n, n)."""
        return attention_scores(self.q, self.k)

    @property
    def weights(self) -> np.ndarray:
        """softmax of each row of the scaled scores, (n, n)."""
        return softmax(self.scaled_scores, axis=-1)

    @property
    def output(self) -> np.ndarray:
        """weights·V, (n, d_v): each token's new vector."""
        return scaled_dot_product_attention(self.q, self.k, self.v)[0]

    def softmax_walkthrough(self, row: int = 0, decimals: int = 2) -> SoftmaxWalkthrough:
        """Softmax of one row of the scaled scores the way the article does it on paper.

        Every intermediate is rounded to `decimals` before the next step, so the printed
        numbers add up (3.16 + 1.79 = 4.95); the exact weights are in `weights`.

        >>> walk = worked_example().softmax_walkthrough(row=0)
        >>> print(walk.scores, walk.exps, walk.total, walk.weights)
        [1.15 0.58] [3.16 1.79] 4.95 [0.64 0.36]
        """
        scores = np.round(self.scaled_scores[row], decimals)
        exps = np.round(np.exp(scores), decimals)  # by hand: e^z from a table, rounded
        total = round(float(exps.sum()), decimals)
        return SoftmaxWalkthrough(scores, exps, total, np.round(exps / total, decimals))


def worked_example(
    x: ArrayLike | None = None,
    w_q: ArrayLike | None = None,
    w_k: ArrayLike | None = None,
    w_v: ArrayLike | None = None,
    tokens: tuple[str, ...] | None = None,
) -> WorkedExample:
    """The article's "I love" example; pass any of the inputs to change it and recompute every step.

    >>> worked_example().output.round(2)
    array([[0.64, 0.36, 0.64],
           [0.36, 0.64, 0.36]])

    Setting W_Q = W_K makes the scores symmetric:

    >>> ex = worked_example(w_q=worked_example().w_k)
    >>> ex.scores
    array([[2., 1.],
           [1., 2.]])
    """
    return WorkedExample(
        tokens=_I_LOVE if tokens is None else tokens,
        x=_readonly(_X if x is None else x),
        w_q=_readonly(_W_Q if w_q is None else w_q),
        w_k=_readonly(_W_K if w_k is None else w_k),
        w_v=_readonly(_W_V if w_v is None else w_v),
    )


# "I love" plus a third token of ours, "cats" = [1, 1, 1, 1], so that K gets a row [1, 2, 1].
_I_LOVE_CATS = ("I", "love", "cats")
_X_THREE = (*_X, (1, 1, 1, 1))


def query_equals_key_example() -> WorkedExample:
    """Three tokens with W_Q = W_K: the scores are symmetric, the attention weights are not.

    With Q = K the scores Q·Kᵀ = K·Kᵀ are a symmetric matrix, but softmax divides each row
    by its own sum of exponentials, so weight (i, j) equals weight (j, i) only when rows i
    and j happen to have the same sum. "I love" alone hides this (its two rows have the
    same sum); a third token, "cats" (our vector [1, 1, 1, 1]), shows it:

    >>> ex = query_equals_key_example()
    >>> ex.scores
    array([[2., 1., 3.],
           [1., 2., 3.],
           [3., 3., 6.]])
    >>> ex.weights.round(2)
    array([[0.3 , 0.17, 0.53],
           [0.17, 0.3 , 0.53],
           [0.13, 0.13, 0.74]])
    """
    return worked_example(x=_X_THREE, w_q=_W_K, tokens=_I_LOVE_CATS)


@dataclass(frozen=True, eq=False)
class IllustrativeSelfAttention:
    """Self-attention over one sentence with HAND-BUILT, illustrative weights (not a trained model).

    Each column of `x` is a named, human-readable feature (`features`); W_Q, W_K and W_V
    were chosen by hand so that the pattern the article describes comes out of the real
    computation (`qkv.self_attention`). `glosses` are optional translations of the tokens.
    """

    tokens: tuple[str, ...]
    features: tuple[str, ...]  # names of the columns of x
    x: np.ndarray  # (n, d_model)
    w_q: np.ndarray  # (d_model, d_k)
    w_k: np.ndarray  # (d_model, d_k)
    w_v: np.ndarray  # (d_model, d_v)
    glosses: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        for name in ("x", "w_q", "w_k", "w_v"):
            object.__setattr__(self, name, _readonly(getattr(self, name)))
        for name in ("tokens", "features", "glosses"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        _check_table(self.x, "x")
        _check_labels(self.tokens, self.x.shape[0], "tokens", "x")
        if len(self.features) != self.x.shape[1]:
            raise ValueError(f"features names {len(self.features)} columns but x has {self.x.shape[1]}")
        if self.glosses:
            _check_labels(self.glosses, len(self.tokens), "glosses", "tokens")
        self.attention()  # fail now, not at the first property

    def attention(self) -> tuple[np.ndarray, np.ndarray]:
        """`(output, weights)` from `qkv.self_attention`."""
        return self_attention(self.x, self.w_q, self.w_k, self.w_v)

    @property
    def weights(self) -> np.ndarray:
        """(n, n); row i = how token i spreads its attention over all tokens."""
        return self.attention()[1]

    @property
    def output(self) -> np.ndarray:
        """(n, d_v); the tokens' new vectors."""
        return self.attention()[0]

    def weights_of(self, token: str) -> dict[str, float]:
        """The attention row of `token` (its first occurrence) as {key token: weight}."""
        row = self.weights[_row_of(token, self.tokens)]
        return {key: float(weight) for key, weight in zip(self.tokens, row, strict=True)}


@dataclass(frozen=True, eq=False)
class IllustrativeCrossAttention:
    """Cross-attention with HAND-BUILT, illustrative weights (not a trained model).

    Queries come from `query_tokens` (the decoder's target sentence, rows of `x_q`), keys
    and values from `key_tokens` (the source sentence, rows of `x_kv`); computed with
    `qkv.cross_attention`.
    """

    query_tokens: tuple[str, ...]
    key_tokens: tuple[str, ...]
    x_q: np.ndarray  # (n_q, d_q_model)
    x_kv: np.ndarray  # (n_k, d_kv_model)
    w_q: np.ndarray  # (d_q_model, d_k)
    w_k: np.ndarray  # (d_kv_model, d_k)
    w_v: np.ndarray  # (d_kv_model, d_v)

    def __post_init__(self) -> None:
        for name in ("x_q", "x_kv", "w_q", "w_k", "w_v"):
            object.__setattr__(self, name, _readonly(getattr(self, name)))
        for name in ("query_tokens", "key_tokens"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        _check_table(self.x_q, "x_q")
        _check_table(self.x_kv, "x_kv")
        _check_labels(self.query_tokens, self.x_q.shape[0], "query_tokens", "x_q")
        _check_labels(self.key_tokens, self.x_kv.shape[0], "key_tokens", "x_kv")
        self.attention()  # fail now, not at the first property

    def attention(self) -> tuple[np.ndarray, np.ndarray]:
        """`(output, weights)` from `qkv.cross_attention`."""
        return cross_attention(self.x_q, self.x_kv, self.w_q, self.w_k, self.w_v)

    @property
    def weights(self) -> np.ndarray:
        """(n_q, n_k); row i = where in the source target token i looks."""
        return self.attention()[1]

    @property
    def output(self) -> np.ndarray:
        """(n_q, d_v)."""
        return self.attention()[0]

    def weights_of(self, token: str) -> dict[str, float]:
        """The attention row of query `token` as {source token: weight}."""
        row = self.weights[_row_of(token, self.query_tokens)]
        return {key: float(weight) for key, weight in zip(self.key_tokens, row, strict=True)}


def cat_sat_on_mat() -> IllustrativeSelfAttention:
    """「猫 坐在 垫子 上」 with hand-built illustrative weights: attention is not symmetric.

    The verb's query asks "who does this?" and the subject's key answers "I am an animate
    subject", so 坐在 looks mostly at 猫. 猫's query asks "where?" instead, so it looks
    at 垫子 and only a little at 坐在. W_V is the identity, so each output row shows
    which features flowed into the token.

    >>> ex = cat_sat_on_mat()
    >>> ex.glosses
    ('cat', 'sits on', 'mat', 'on')
    >>> print(ex.weights.round(2))
    [[0.14 0.14 0.46 0.26]
     [0.84 0.03 0.08 0.05]
     [0.11 0.35 0.35 0.2 ]
     [0.07 0.07 0.66 0.21]]
    """
    # columns:  noun verb animate place locative
    x = [
        [1, 0, 1, 0, 0],  # 猫: an animate noun
        [0, 1, 0, 0, 0],  # 坐在: a verb
        [1, 0, 0, 1, 0],  # 垫子: a noun that is a place
        [0, 0, 0, 0, 1],  # 上: a locative particle
    ]
    # key space:  "I am a subject", "I am a place", "I am an action"
    w_k = [
        [0, 0, 0],  # noun
        [0, 0, 2],  # verb     -> action
        [2, 0, 0],  # animate  -> subject
        [0, 2, 0],  # place    -> place
        [0, 1, 0],  # locative -> a little place
    ]
    # what each feature asks for, in the same key space
    w_q = [
        [0, 1, 0],  # noun: "where am I?"
        [3, 1, 0],  # verb: "who does this?" (strongly) and "where?"
        [0, 0, 0],  # animate
        [0, 0, 1],  # place: "what happens here?"
        [0, 2, 0],  # locative: "on what?"
    ]
    return IllustrativeSelfAttention(
        tokens=("猫", "坐在", "垫子", "上"),
        glosses=("cat", "sits on", "mat", "on"),
        features=("noun", "verb", "animate", "place", "locative"),
        x=np.array(x),
        w_q=np.array(w_q),
        w_k=np.array(w_k),
        w_v=np.eye(5, dtype=int),
    )


@dataclass(frozen=True, eq=False)
class TranslationExample:
    """"I love cats" → 「我 爱 猫」: encoder self-attention and decoder cross-attention, hand-built.

    `encoder` is self-attention inside the source sentence; `cross` has queries from the
    target tokens and keys/values from the source tokens.
    """

    encoder: IllustrativeSelfAttention
    cross: IllustrativeCrossAttention

    @property
    def source_tokens(self) -> tuple[str, ...]:
        return self.encoder.tokens

    @property
    def target_tokens(self) -> tuple[str, ...]:
        return self.cross.query_tokens


def translation_example() -> TranslationExample:
    """"I love cats" → 「我 爱 猫」 with hand-built illustrative weights (not a trained model).

    In the encoder, the verb "love" asks for its subject and its object, so it looks at
    "I" and "cats" more than at itself. In the decoder, each target word's query is mapped
    into a space of meanings where the matching source word's key lies, so cross-attention
    aligns 我→I, 爱→love, 猫→cats. For simplicity K and V come from the source embeddings
    themselves; in a real decoder they come from the encoder's output.

    >>> ex = translation_example()
    >>> print(ex.encoder.weights.round(2))
    [[0.08 0.83 0.08]
     [0.48 0.05 0.48]
     [0.08 0.83 0.08]]
    >>> print(ex.cross.weights.round(2))
    [[0.83 0.08 0.08]
     [0.08 0.83 0.08]
     [0.08 0.08 0.83]]
    """
    # source columns: pronoun verb noun
    x_source = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]  # I, love, cats
    encoder = IllustrativeSelfAttention(
        tokens=("I", "love", "cats"),
        glosses=("我", "爱", "猫"),
        features=("pronoun", "verb", "noun"),
        x=np.array(x_source),
        # key space: "I am a subject", "I am an object", "I am an action"
        w_k=np.array([[2, 0, 0], [0, 0, 2], [0, 2, 0]]),
        # a subject and an object ask for their verb; the verb asks for both
        w_q=np.array([[0, 0, 2], [2, 2, 0], [0, 0, 2]]),
        w_v=np.eye(3, dtype=int),
    )
    # Target columns are in a different order (noun, pronoun, verb): W_Q has to map them
    # into the source's key space of meanings ("self", "love", "cat").
    cross = IllustrativeCrossAttention(
        query_tokens=("我", "爱", "猫"),
        key_tokens=encoder.tokens,
        x_q=np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]]),
        x_kv=np.array(x_source),
        w_q=np.array([[0, 0, 2], [2, 0, 0], [0, 2, 0]]),  # noun -> "cat", pronoun -> "self", verb -> "love"
        w_k=2 * np.eye(3, dtype=int),
        w_v=np.eye(3, dtype=int),
    )
    return TranslationExample(encoder=encoder, cross=cross)


def it_animal_sentence() -> IllustrativeSelfAttention:
    """"The animal didn't cross the street because it was too tired ." with hand-built weights.

    Illustrative, not a trained model: the query of "it" asks for a noun that is animate
    (standing in for what "tired" tells a trained model), and only "animal" has both in
    its key, so "it" looks at "animal" far more than at "street". Other tokens ask for
    little and spread their attention almost evenly.

    >>> ex = it_animal_sentence()
    >>> row = ex.weights_of("it")
    >>> max(row, key=row.get)
    'animal'
    >>> round(row["animal"], 2), round(row["street"], 2)
    (0.83, 0.05)
    """
    features = ("noun", "animate", "pronoun", "verb", "function", "adjective")
    rows = {
        "The": [0, 0, 0, 0, 1, 0],
        "animal": [1, 1, 0, 0, 0, 0],
        "didn't": [0, 0, 0, 1, 0, 0],
        "cross": [0, 0, 0, 1, 0, 0],
        "the": [0, 0, 0, 0, 1, 0],
        "street": [1, 0, 0, 0, 0, 0],
        "because": [0, 0, 0, 0, 1, 0],
        "it": [0, 0, 1, 0, 0, 0],
        "was": [0, 0, 0, 1, 0, 0],
        "too": [0, 0, 0, 0, 1, 0],
        "tired": [0, 0, 0, 0, 0, 1],
        ".": [0, 0, 0, 0, 1, 0],
    }
    tokens = tuple(["The", "animal", "didn't", "cross", "the", "street", "because", "it", "was", "too", "tired", "."])
    # key space: "I am a noun", "I am animate"
    w_k = [[2, 0], [0, 2], [0, 0], [0, 0], [0, 0], [0, 0]]
    w_q = [
        [0, 0],
        [0, 0],
        [1, 2],  # pronoun: "which noun, preferably animate, do I stand for?"
        [0, 0],
        [0, 0],
        [0, 1],  # adjective: "who is (tired)?"
    ]
    return IllustrativeSelfAttention(
        tokens=tokens,
        features=features,
        x=np.array([rows[token] for token in tokens]),
        w_q=np.array(w_q),
        w_k=np.array(w_k),
        w_v=np.eye(6, dtype=int),
    )
