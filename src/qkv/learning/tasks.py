"""The two tasks one training loop serves: what a model reads, what it answers and which sentences it learns from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from qkv.learning import referent_sentences as r
from qkv.learning import sentences as s


@dataclass(frozen=True, eq=False)
class Task:
    """One task: its vocabulary, its sentences, and what the readout scores.

    `outputs` None: the readout scores the two candidates' positions (the answer is "the animal" or
    "the place"); otherwise it scores the token embedding of each of these words (the answer is a word).
    """

    name: str
    vocabulary: tuple[str, ...]
    max_length: int
    outputs: tuple[str, ...] | None
    tokens: Callable[[str], list[str]]
    batch: Callable[[list[str]], s.Sentences]  # for inference: labels are placeholders
    train: Callable[[], s.Sentences]
    heldout: Callable[[], s.Sentences]
    probes: tuple[str, str]  # the article's sentence and its "wide" twin

    @property
    def output_ids(self) -> np.ndarray | None:
        """(C,) the vocabulary ids of `outputs`, or None."""
        return None if self.outputs is None else np.array([self.vocabulary.index(w) for w in self.outputs])


TASKS: dict[str, Task] = {
    "coreference": Task("coreference", s.VOCABULARY, s.MAX_LENGTH, None, s.tokens, lambda text: s.batch(text),
                        lambda: s.corpus(heldout=False), lambda: s.corpus(heldout=True),
                        (s.ARTICLE_SENTENCE, s.ARTICLE_TWIN)),
    "referent": Task("referent", r.VOCABULARY, r.MAX_LENGTH, r.NOUNS, r.tokens, lambda text: r.batch(text),
                     lambda: r.corpus(heldout=False).sentences, lambda: r.corpus(heldout=True).sentences, r.PROBES),
}
