"""The referent task's sentences: three candidate nouns at varying positions, and a split that hides shortcuts.

"The dog didn't carry the box across the bridge because it was too heavy": an adjective that fits
an animal (tired, …) makes "it" the animal, one that fits a place (wide, …) the place, one that fits
an object (heavy, …) the object. The model answers with the referent's *word*, scored against every
noun of the vocabulary (`NOUNS`), so it has to bring the referent's identity to "it"; knowing
which kind of word is meant is not enough.

Where the words are. Eight frames put the animal (A), the place (P) and the object (O) in six
different orders, two of them with "it" before the nouns ("because it was too heavy the dog
didn't carry …"). A prefix of 0-3 words ("yesterday", "early that morning"), an intensifier of 1-2
words ("too", "far too") and, after the nouns, 0-2 words ("again", "that day") move every word, so
that the referent's position varies within every (frame, adjective) pair.

What is held out, and why the held-out words are still trained:

- (referent, adjective) pairs: each noun is the answer in training with 4 of the 6 adjectives of
  its kind, and held out with the other 2 (`heldout_referent`: the noun's index in its kind plus
  the adjective's is a multiple of 3). Every noun is trained, as an answer and as a distractor;
  what is new is the combination. Holding whole nouns out as answers does not test the same thing:
  a noun that is never the answer in training (tried with two nouns of each kind, seeds 0 and 1)
  is never the answer after it either, 0-4 % of such sentences right, while the same models got
  96-100 % of new (frame, adjective) pairs. The readout learns a prior over answers, which is
  right for the training set, and a held-out noun's prior is zero. (A noun never seen at all
  would keep its random embedding and test nothing.)
- (frame, adjective) pairs: each frame loses the adjectives whose index within their kind is
  congruent to the frame's number modulo 4 (`heldout_pair`); every adjective is still trained in
  6 of the 8 frames, every frame with 4 or 5 adjectives of each kind.

A training sentence has neither; a held-out sentence has one or both, and its `kinds` says which
("referent": a new (referent, adjective) pair, "pair": a new (frame, adjective) pair, or "both").
Within every (frame, adjective) pair of the training set the answer
takes several words and the referent several positions (a test checks it), so no function of
(frame, adjective) fits the training labels. The article's sentence and its "wide" twin (two nouns,
no object) are valid inputs; they are in neither set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from qkv.learning.sentences import ARTICLE_SENTENCE, ARTICLE_TWIN, PAD, Sentences

ANIMALS: tuple[str, ...] = ("animal", "dog", "cat", "horse", "cow", "fox", "sheep", "goat")
PLACES: tuple[str, ...] = ("street", "road", "river", "bridge", "field", "square", "highway", "yard")
OBJECTS: tuple[str, ...] = ("box", "crate", "ball", "bag", "barrel", "sack", "basket", "log")
KINDS: tuple[str, ...] = ("animal", "place", "object")
NOUNS_BY_KIND: dict[str, tuple[str, ...]] = {"animal": ANIMALS, "place": PLACES, "object": OBJECTS}
ADJECTIVES: dict[str, tuple[str, ...]] = {
    "animal": ("tired", "scared", "hungry", "sleepy", "weak", "nervous"),
    "place": ("wide", "busy", "icy", "muddy", "crowded", "steep"),
    "object": ("heavy", "bulky", "full", "awkward", "fragile", "wobbly"),
}
NOUNS: tuple[str, ...] = ANIMALS + PLACES + OBJECTS  # the readout's answers, in this order

# {a}, {p}, {o}: the three nouns; {j}: the adjective; {i}: the intensifier; {m}: the words after the nouns.
FRAMES: tuple[str, ...] = (
    "the {a} didn't carry the {o} across the {p}{m} because it was {i} {j}",  # A O P
    "the {a} didn't cross the {p} with the {o}{m} because it was {i} {j}",  # A P O
    "the {o} wasn't carried by the {a} across the {p}{m} because it was {i} {j}",  # O A P
    "on the {p} the {a} dropped the {o}{m} because it was {i} {j}",  # P A O
    "the {o} stayed on the {p} near the {a}{m} because it was {i} {j}",  # O P A
    "the {p} and the {o} stopped the {a}{m} because it was {i} {j}",  # P O A
    "because it was {i} {j} the {a} didn't carry the {o} across the {p}{m}",  # "it" first, A O P
    "because it was {i} {j} the {p} and the {o} stopped the {a}{m}",  # "it" first, P O A
)
PREFIXES: tuple[str, ...] = ("", "yesterday", "that morning", "early that morning")
INTENSIFIERS: tuple[str, ...] = ("too", "far too", "much too")
AFTER_NOUNS: tuple[str, ...] = ("", "again", "that day")

_FRAME_WORDS = sorted({w for f in FRAMES for w in re.sub(r"\{\w\}", " ", f).split()}
                      | {w for phrase in PREFIXES + INTENSIFIERS + AFTER_NOUNS for w in phrase.split()})
VOCABULARY: tuple[str, ...] = (PAD, *_FRAME_WORDS, *NOUNS, *(j for kind in KINDS for j in ADJECTIVES[kind]))
_INDEX = {word: i for i, word in enumerate(VOCABULARY)}
OUTPUTS = np.array([_INDEX[noun] for noun in NOUNS], dtype=np.intp)  # (24,): the readout's rows of the embedding
MAX_LENGTH = max(len(PREFIXES[-1].split()) + len(f.split()) + 3 for f in FRAMES)  # intensifier +1, after-nouns +2
_KIND_OF = {word: kind for kind in KINDS for word in NOUNS_BY_KIND[kind] + ADJECTIVES[kind]}

_SPLIT_SEED = 20260102  # the corpora do not depend on the training seed
TRAIN_SIZE, HELDOUT_SIZE = 6000, 900


def tokens(sentence: str) -> list[str]:
    """The sentence's words, lower-cased, without punctuation; every word must be in the vocabulary.

    >>> tokens("The animal didn't cross the street because it was too wide.")
    ['the', 'animal', "didn't", 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'wide']
    >>> tokens("the dog didn't carry the piano because it was too heavy")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: sentence has the unknown word 'piano' (word 5 after 'the'); the referent model knows only these 69 ...
    """
    if not isinstance(sentence, str):
        raise TypeError(f"sentence must be a str, got {type(sentence).__name__}")
    words = re.sub(r"[.,;:!?]", " ", sentence.lower()).split()
    if not words:
        raise ValueError("sentence is empty")
    for i, word in enumerate(words):
        if word not in _INDEX or word == PAD:
            after = f" after {words[i - 1]!r}" if i else ""
            known = ", ".join(repr(w) for w in sorted(VOCABULARY[1:]))
            raise ValueError(f"sentence has the unknown word {word!r} (word {i}{after}); "
                             f"the referent model knows only these {len(VOCABULARY) - 1} words: {known}")
    return words


def _check(words: list[str]) -> None:
    text = " ".join(words)
    its = [i for i, word in enumerate(words) if word == "it"]
    if len(its) != 1:
        raise ValueError(f"sentence must have exactly one 'it', it has {len(its)} in \"{text}\"")
    nouns = [word for word in words if word in NOUNS]
    if len(nouns) < 2:
        raise ValueError(f"sentence must name at least two nouns for 'it' to choose from, it names {len(nouns)} "
                         f"in \"{text}\"")
    if len(words) > MAX_LENGTH:
        raise ValueError(f"sentence has {len(words)} words; the model has positions for {MAX_LENGTH} in \"{text}\"")


def batch(sentences: list[str], answers: list[str] | None = None) -> Sentences:
    """Encode and pad `sentences`; `labels` are indices into `NOUNS` (0 for inference, `answers` None).

    `candidates` holds, per sentence, the position of its referent (of its first noun without answers).

    >>> b = batch(["yesterday the dog didn't cross the road with the box because it was far too heavy"], ["box"])
    >>> b.it.tolist(), b.candidates.tolist(), NOUNS[int(b.labels[0])]
    ([11], [[9]], 'box')
    """
    split = [tokens(sentence) for sentence in sentences]
    for words in split:
        _check(words)
    if answers is not None:
        for words, answer in zip(split, answers, strict=True):
            if answer not in words or answer not in NOUNS:
                raise ValueError(f"answer {answer!r} is not a noun of \"{' '.join(words)}\"")
    n = max(len(words) for words in split)
    ids = np.full((len(split), n), _INDEX[PAD], dtype=np.intp)  # (B, n)
    mask = np.zeros((len(split), n), dtype=bool)  # (B, n)
    for row, words in enumerate(split):
        ids[row, : len(words)] = [_INDEX[w] for w in words]
        mask[row, : len(words)] = True
    chosen = answers if answers is not None else [next(w for w in words if w in NOUNS) for words in split]
    return Sentences(
        tuple(" ".join(words) for words in split),
        ids,
        mask,
        np.array([words.index("it") for words in split], dtype=np.intp),
        np.array([[words.index(a)] for words, a in zip(split, chosen, strict=True)], dtype=np.intp).reshape(-1, 1),
        np.array([NOUNS.index(a) if answers is not None else 0 for a in chosen], dtype=np.intp),
    )


def heldout_pair(frame: int, adjective: str) -> bool:
    """Whether (frame, adjective) is kept out of training: the adjective's index in its kind ≡ frame (mod 4).

    >>> [j for j in ADJECTIVES["animal"] if heldout_pair(0, j)]
    ['tired', 'weak']
    """
    return (ADJECTIVES[_KIND_OF[adjective]].index(adjective) - frame) % 4 == 0


def heldout_referent(noun: str, adjective: str) -> bool:
    """Whether `noun` is never the answer with `adjective` in training: their indices in their kinds sum to 0 mod 3.

    >>> [j for j in ADJECTIVES["animal"] if heldout_referent("dog", j)]
    ['hungry', 'nervous']
    """
    return (NOUNS_BY_KIND[_KIND_OF[noun]].index(noun) + ADJECTIVES[_KIND_OF[adjective]].index(adjective)) % 3 == 0


@dataclass(frozen=True, eq=False)
class Corpus:
    """Labelled sentences of one set, with what each one is made of."""

    sentences: Sentences
    answers: tuple[str, ...]  # the referent's word
    frames: np.ndarray  # (B,) int: index into FRAMES
    adjectives: tuple[str, ...]
    kinds: tuple[str, ...]  # held-out sets: "referent", "pair" or "both"; training: "train"


def _sentence(rng: np.random.Generator, referent_kind: str, want: str) -> tuple[str, str, int, str, str]:
    """Draw one sentence of the set `want` ("train", "referent", "pair", "both") with a referent of that kind."""
    while True:
        frame = int(rng.integers(len(FRAMES)))
        adjective = str(rng.choice(ADJECTIVES[referent_kind]))
        if heldout_pair(frame, adjective) != (want in ("pair", "both")):
            continue
        nouns = {kind: str(rng.choice(NOUNS_BY_KIND[kind])) for kind in KINDS}
        referent = nouns[referent_kind]
        if heldout_referent(referent, adjective) != (want in ("referent", "both")):
            continue
        words = FRAMES[frame].format(a=nouns["animal"], p=nouns["place"], o=nouns["object"], j=adjective,
                                     i=str(rng.choice(INTENSIFIERS)),
                                     m="".join(f" {w}" for w in str(rng.choice(AFTER_NOUNS)).split()))
        prefix = str(rng.choice(PREFIXES))
        return f"{prefix} {words}".strip(), referent, frame, adjective, want


def _corpus(heldout: bool) -> Corpus:
    rng = np.random.default_rng(_SPLIT_SEED + heldout)
    size = HELDOUT_SIZE if heldout else TRAIN_SIZE
    wants = ("referent", "pair", "both") if heldout else ("train",)
    drawn = [_sentence(rng, KINDS[i % 3], wants[(i // 3) % len(wants)]) for i in range(size)]
    text, answers, frames, adjectives, kinds = (list(column) for column in zip(*drawn, strict=True))
    return Corpus(batch(text, answers), tuple(answers), np.array(frames, dtype=np.intp), tuple(adjectives), tuple(kinds))


_CORPORA: dict[bool, Corpus] = {}


def corpus(*, heldout: bool) -> Corpus:
    """The training set (`heldout=False`, 6,000 sentences) or the held-out set (900: 300 of each kind).

    Drawn once from fixed seeds, so every run trains and is judged on the same sentences.

    >>> train, held = corpus(heldout=False), corpus(heldout=True)
    >>> len(train.sentences), len(held.sentences), sorted(set(held.kinds))
    (6000, 900, ['both', 'pair', 'referent'])
    """
    if heldout not in _CORPORA:
        _CORPORA[heldout] = _corpus(heldout)
    return _CORPORA[heldout]


def all_combinations() -> int:
    """How many distinct sentences the frames and word lists make (the sets above are samples of them).

    >>> f"{all_combinations():,}"
    '2,654,208'
    """
    return len(FRAMES) * len(PREFIXES) * len(INTENSIFIERS) * len(AFTER_NOUNS) * 8**3 * 18


PROBES: tuple[str, str] = (ARTICLE_SENTENCE, ARTICLE_TWIN)
