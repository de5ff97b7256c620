"""The Winograd-style sentences: word lists, frames, the vocabulary, tokens and the held-out split.

"The ANIMAL didn't cross the PLACE because it was too ADJ": an adjective that fits an animal
(tired, scared, …) makes "it" the animal, one that fits a place (wide, busy, …) makes it the place.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import numpy as np

ANIMALS: tuple[str, ...] = ("animal", "dog", "cat", "horse", "cow", "fox", "sheep", "goat")
PLACES: tuple[str, ...] = ("street", "road", "river", "bridge", "field", "square", "highway", "yard")
ANIMAL_ADJECTIVES: tuple[str, ...] = ("tired", "scared", "hungry", "sleepy", "weak", "nervous")
PLACE_ADJECTIVES: tuple[str, ...] = ("wide", "busy", "icy", "muddy", "crowded", "steep")

# Four frames, in two pairs that swap the animal and the place around an "it" at the same position
# ("it" comes first in the second pair), so the position of a word alone cannot answer.
FRAMES: tuple[str, ...] = (
    "the {animal} didn't cross the {place} because it was too {adjective}",
    "the {place} didn't tempt the {animal} because it was too {adjective}",
    "because it was too {adjective} the {animal} didn't cross the {place}",
    "because it was too {adjective} the {place} didn't tempt the {animal}",
)

ARTICLE_SENTENCE = "The animal didn't cross the street because it was too tired"
ARTICLE_TWIN = "The animal didn't cross the street because it was too wide"

PAD = "<pad>"  # fills a short sentence up to the batch's length; no key ever attends to it
_FUNCTION_WORDS = ("the", "didn't", "cross", "tempt", "because", "it", "was", "too")
VOCABULARY: tuple[str, ...] = (PAD, *_FUNCTION_WORDS, *ANIMALS, *PLACES, *ANIMAL_ADJECTIVES, *PLACE_ADJECTIVES)
_INDEX = {word: i for i, word in enumerate(VOCABULARY)}
MAX_LENGTH = max(len(frame.split()) for frame in FRAMES)  # 11: the model has a position embedding for each

# The split does not depend on the training seed: every run is judged on the same held-out sentences.
_SPLIT_SEED = 20260101
HELDOUT_FRACTION = 0.2

ANIMAL, PLACE = 0, 1  # the two labels: which candidate "it" refers to


def tokens(sentence: str) -> list[str]:
    """The sentence's words, lower-cased, without punctuation; every word must be in the vocabulary.

    >>> tokens("The animal didn't cross the street because it was too tired.")
    ['the', 'animal', "didn't", 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'tired']
    >>> tokens("The animal didn't cross the street because it was too purple")
    Traceback (most recent call last):
    ...
    ValueError: sentence has the unknown word 'purple' (word 10 after 'too'); the model knows only its 36 training words
    """
    if not isinstance(sentence, str):
        raise TypeError(f"sentence must be a str, got {type(sentence).__name__}")
    words = re.sub(r"[.,;:!?]", " ", sentence.lower()).split()
    if not words:
        raise ValueError("sentence is empty")
    for i, word in enumerate(words):
        if word not in _INDEX or word == PAD:
            after = f" after {words[i - 1]!r}" if i else ""
            raise ValueError(
                f"sentence has the unknown word {word!r} (word {i}{after}); "
                f"the model knows only its {len(VOCABULARY) - 1} training words"
            )
    return words


@dataclass(frozen=True)
class Encoded:
    """One sentence as the model reads it: token ids and where "it" and the two candidates are."""

    ids: np.ndarray  # (n,) int: indices into VOCABULARY
    it: int  # position of "it"
    candidates: tuple[int, int]  # positions of the animal and of the place, in that order


def encode(sentence: str) -> Encoded:
    """Token ids, and the positions of "it", of the animal and of the place (exactly one of each).

    >>> e = encode("The street didn't tempt the dog because it was too icy")
    >>> e.it, e.candidates
    (7, (5, 1))
    >>> encode("the dog didn't cross the street")
    Traceback (most recent call last):
    ...
    ValueError: sentence has no 'it': the model resolves the word 'it' in "the dog didn't cross the street"
    """
    words = tokens(sentence)
    text = " ".join(words)
    its = [i for i, word in enumerate(words) if word == "it"]
    if not its:
        raise ValueError(f"sentence has no 'it': the model resolves the word 'it' in \"{text}\"")
    if len(its) > 1:
        raise ValueError(f"sentence has {len(its)} words 'it' (at {its}); the model resolves exactly one in \"{text}\"")
    found = []
    for kind, words_of_kind in (("animal", ANIMALS), ("place", PLACES)):
        where = [i for i, word in enumerate(words) if word in words_of_kind]
        if len(where) != 1:
            raise ValueError(
                f"sentence must name exactly one {kind} ({', '.join(words_of_kind)}), it names {len(where)} in \"{text}\""
            )
        found.append(where[0])
    if len(words) > MAX_LENGTH:
        raise ValueError(f"sentence has {len(words)} words; the model has positions for {MAX_LENGTH} in \"{text}\"")
    ids = np.array([_INDEX[word] for word in words], dtype=np.intp)
    return Encoded(ids, its[0], (found[0], found[1]))


@dataclass(frozen=True, eq=False)
class Sentences:
    """A padded batch of sentences with their answers: what the forward pass takes."""

    text: tuple[str, ...]  # (B,) the sentences, lower-case
    ids: np.ndarray  # (B, n) int token ids, PAD after a sentence's end
    mask: np.ndarray  # (B, n) bool: True where a real word is (keys that may be attended to)
    it: np.ndarray  # (B,) int: position of "it"
    candidates: np.ndarray  # (B, 2) int: positions of the animal and the place
    labels: np.ndarray  # (B,) int: ANIMAL (0) or PLACE (1), the candidate "it" refers to

    def __len__(self) -> int:
        return len(self.text)

    def subset(self, rows: np.ndarray) -> Sentences:
        """The sentences at `rows` (an int array), in that order."""
        return Sentences(tuple(self.text[i] for i in rows), self.ids[rows], self.mask[rows], self.it[rows],
                         self.candidates[rows], self.labels[rows])


def batch(sentences: list[str], labels: list[int] | None = None) -> Sentences:
    """Encode and pad `sentences` to one length; labels default to ANIMAL (for inference only)."""
    encoded = [encode(sentence) for sentence in sentences]
    n = max(len(e.ids) for e in encoded)
    ids = np.full((len(encoded), n), _INDEX[PAD], dtype=np.intp)  # (B, n)
    mask = np.zeros((len(encoded), n), dtype=bool)  # (B, n)
    for row, e in enumerate(encoded):
        ids[row, : len(e.ids)] = e.ids
        mask[row, : len(e.ids)] = True
    return Sentences(
        tuple(" ".join(tokens(s)) for s in sentences),
        ids,
        mask,
        np.array([e.it for e in encoded], dtype=np.intp),
        np.array([e.candidates for e in encoded], dtype=np.intp).reshape(len(encoded), 2),
        np.array(labels if labels is not None else [ANIMAL] * len(encoded), dtype=np.intp),
    )


def heldout_triples() -> frozenset[tuple[str, str, str]]:
    """The (animal, place, adjective) triples kept out of training, in every frame.

    The article's sentence and its "wide" twin, and a fixed random fifth of the other triples. A
    held-out triple is never seen together in training in any frame, though each of its pairs is.

    >>> {("animal", "street", "tired"), ("animal", "street", "wide")} <= heldout_triples()
    True
    >>> len(heldout_triples())
    155
    """
    article = {("animal", "street", "tired"), ("animal", "street", "wide")}
    others = [t for t in itertools.product(ANIMALS, PLACES, ANIMAL_ADJECTIVES + PLACE_ADJECTIVES) if t not in article]
    rng = np.random.default_rng(_SPLIT_SEED)
    chosen = rng.choice(len(others), size=round(HELDOUT_FRACTION * len(others)), replace=False)
    return frozenset(article | {others[i] for i in sorted(chosen)})


def corpus(*, heldout: bool) -> Sentences:
    """Every sentence of the training set (`heldout=False`) or of the held-out set (`heldout=True`).

    Frames × animals × places × adjectives = 4 × 8 × 8 × 12 = 3,072 sentences, split by triple.

    >>> len(corpus(heldout=False)), len(corpus(heldout=True))
    (2452, 620)
    """
    keep = heldout_triples()
    text, labels = [], []
    for frame, animal, place, adjective in itertools.product(FRAMES, ANIMALS, PLACES, ANIMAL_ADJECTIVES + PLACE_ADJECTIVES):
        if ((animal, place, adjective) in keep) == heldout:
            text.append(frame.format(animal=animal, place=place, adjective=adjective))
            labels.append(ANIMAL if adjective in ANIMAL_ADJECTIVES else PLACE)
    return batch(text, labels)
