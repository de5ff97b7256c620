"""qkv.learning's referent task: its sentences move every word, its split holds out what it says, no shortcut fits."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from qkv.learning import referent_sentences as r
from qkv.learning import train_referent
from qkv.learning.sentences import ARTICLE_SENTENCE, ARTICLE_TWIN


@pytest.fixture(scope="module")
def train() -> r.Corpus:
    return r.corpus(heldout=False)


@pytest.fixture(scope="module")
def held() -> r.Corpus:
    return r.corpus(heldout=True)


def _referent_positions(corpus: r.Corpus) -> np.ndarray:
    return corpus.sentences.candidates[:, 0]


def test_every_sentence_names_one_noun_of_each_kind_and_its_answer_is_the_adjectives_kind(train, held) -> None:
    for corpus in (train, held):
        for text, answer, adjective in zip(corpus.sentences.text, corpus.answers, corpus.adjectives, strict=True):
            words = text.split()
            for kind in r.KINDS:
                assert sum(w in r.NOUNS_BY_KIND[kind] for w in words) == 1, text
            assert answer in words and adjective in words and words.count("it") == 1
            assert answer in r.NOUNS_BY_KIND[next(k for k in r.KINDS if adjective in r.ADJECTIVES[k])]


def test_positions_vary_within_every_frame_and_the_pronoun_comes_before_and_after_the_nouns(train) -> None:
    positions = _referent_positions(train)
    its = train.sentences.it
    for frame in range(len(r.FRAMES)):
        rows = train.frames == frame
        assert len(set(positions[rows].tolist())) >= 4, r.FRAMES[frame]
        assert len(set(its[rows].tolist())) >= 3, r.FRAMES[frame]
    assert (its < positions).any() and (its > positions).any()
    distance = np.abs(its - positions)
    assert distance.min() <= 3 and distance.max() >= 12


def test_the_heldout_set_is_disjoint_from_training_as_designed(train, held) -> None:
    assert set(train.sentences.text).isdisjoint(held.sentences.text)
    train_pairs = {(f, j) for f, j in zip(train.frames.tolist(), train.adjectives, strict=True)}
    train_referents = set(zip(train.answers, train.adjectives, strict=True))
    for frame, adjective, answer, kind in zip(held.frames.tolist(), held.adjectives, held.answers, held.kinds,
                                              strict=True):
        new_pair = (frame, adjective) not in train_pairs
        new_referent = (answer, adjective) not in train_referents
        assert (new_pair, new_referent) == {"pair": (True, False), "referent": (False, True), "both": (True, True)}[kind]
    assert collections.Counter(held.kinds) == {"referent": 300, "pair": 300, "both": 300}
    # Every word the held-out set uses is trained: each adjective in training, each noun as an answer and not.
    train_words = {w for text in train.sentences.text for w in text.split()}
    assert {w for text in held.sentences.text for w in text.split()} <= train_words
    assert set(r.NOUNS) <= set(train.answers)
    for frame in range(len(r.FRAMES)):
        for kind in r.KINDS:
            assert 4 <= sum((frame, j) in train_pairs for j in r.ADJECTIVES[kind]) <= 5


def test_no_function_of_frame_and_adjective_fits_the_training_answers(train) -> None:
    """Within every (frame, adjective) pair of training, the answer takes several words and several positions."""
    words, positions = collections.defaultdict(set), collections.defaultdict(set)
    for frame, adjective, answer, position in zip(train.frames.tolist(), train.adjectives, train.answers,
                                                  _referent_positions(train).tolist(), strict=True):
        words[frame, adjective].add(answer)
        positions[frame, adjective].add(position)
    assert len(words) == sum(not r.heldout_pair(f, j) for f in range(len(r.FRAMES))
                             for k in r.KINDS for j in r.ADJECTIVES[k])
    assert min(len(v) for v in words.values()) >= 2
    assert min(len(v) for v in positions.values()) >= 2
    # The best any function of (frame, adjective) can do is to answer each pair's most common word.
    counts = collections.Counter(zip(train.frames.tolist(), train.adjectives, train.answers, strict=True))
    best = sum(max(c for (f, j, _), c in counts.items() if (f, j) == key) for key in words)
    assert best / len(train.answers) < 0.5


def test_the_articles_sentence_and_its_twin_are_valid_inputs_of_both_kinds_of_model() -> None:
    model = train_referent(seed=0, steps=5)
    for sentence in (ARTICLE_SENTENCE, ARTICLE_TWIN):
        assert model.tokens(sentence)[:2] == ["the", "animal"]
        assert model.attention(sentence).shape == (2, 11, 11)
        assert model.resolve(sentence) in r.NOUNS
    assert r.batch([ARTICLE_SENTENCE], ["animal"]).candidates.tolist() == [[1]]


@pytest.mark.parametrize(
    ("sentence", "message"),
    [
        ("the dog didn't carry the piano because it was too heavy", "unknown word 'piano'.*knows only these 69 words"),
        ("the dog didn't carry the box", "exactly one 'it', it has 0"),
        ("because it was too heavy it stopped", "exactly one 'it', it has 2"),
        ("the dog was too tired because it was tired", "at least two nouns"),
    ],
)
def test_bad_sentences_are_named(sentence: str, message: str) -> None:
    model = train_referent(seed=0, steps=5)
    with pytest.raises(ValueError, match=message):
        model.resolve(sentence)


def test_bad_options_are_named() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'task'"):
        train_referent(task="coreference")
    with pytest.raises(ValueError, match="optimizer must be one of"):
        train_referent(optimizer="rmsprop")
    with pytest.raises(ValueError, match="not a noun of"):
        r.batch(["the dog didn't carry the box because it was too heavy"], ["cat"])
