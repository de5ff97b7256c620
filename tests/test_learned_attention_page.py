"""The page “让模型自己学会注意 / Watching a model learn to attend”: its values, and each sentence's
check firing when the trained models no longer support it (the runs swapped or their attention changed)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from qkv.learning import sentences as s
from qkv_site.content.claims import ClaimError
from qkv_site.pages import learned_attention as page
from qkv_site.pages import motivation
from qkv_site.project import Project


def test_the_values_are_formatted_strings_for_both_languages(project: Project) -> None:
    shown = page.values(project)
    assert shown["task"]["sentences"] == f"{len(s.corpus(heldout=False)) + len(s.corpus(heldout=True)):,}"
    assert shown["baseline"]["accuracy"] == f"{page.models()['baseline'].heldout_accuracy:.1%}"
    assert [row["step"] for row in shown["snapshots"]] == [str(int(t)) for t in page.models()["baseline"].history.snapshot_steps]
    assert all(set(row) == {"step", "one", "sqrt", "d_k"} for row in shown["scaling"]["rows"])


def test_the_motivation_caption_uses_the_page_s_runs(project: Project) -> None:
    trained = motivation.values(project)["trained"]
    assert trained["accuracy"] == page.values(project)["baseline"]["accuracy"]
    assert trained["train"] == f"{len(s.corpus(heldout=False)):,}"


def swapped(monkeypatch: pytest.MonkeyPatch, **replace: str) -> None:
    """Make `models()` return other runs under some names (e.g. the baseline as "scale 1")."""
    real = page.models()
    fake = {name: real[replace.get(name, name)] for name in real}
    monkeypatch.setattr(page, "models", lambda: fake)


def test_scale_1_saturating_and_learning_least_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    swapped(monkeypatch, **{"scale 1": "scale 1/√d_k"})
    with pytest.raises(ClaimError, match=r"learned-attention\.md.*scale 1"):
        page._scaling()


def test_1_over_d_k_sitting_at_chance_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    swapped(monkeypatch, **{"scale 1/d_k": "scale 1/√d_k"})
    with pytest.raises(ClaimError, match="1/d_k"):
        page._scaling()


def test_tied_learning_only_partly_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    swapped(monkeypatch, **{"tied W_Q = W_K": "scale 1/√d_k"})
    with pytest.raises(ClaimError, match="tied W_Q = W_K"):
        page._tied()


def test_no_projections_at_chance_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    swapped(monkeypatch, **{"no projections": "baseline"})
    with pytest.raises(ClaimError, match="chance"):
        page._no_projections()


def test_one_layer_at_most_three_of_four_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    swapped(monkeypatch, **{"one layer": "baseline"})
    with pytest.raises(ClaimError, match="3 of 4"):
        page._one_layer()
    with pytest.raises(ClaimError, match="at most 3 of the 4"):
        page._exercise_2()


class _LooksAtAnimal:
    """The baseline model, except that layer-2 "it" puts all its weight on the animal."""

    def __init__(self, model: Any) -> None:
        self._model = model

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def attention(self, sentence: str) -> np.ndarray:
        a = self._model.attention(sentence).copy()
        encoded = s.encode(sentence)
        a[1, encoded.it] = 0.0
        a[1, encoded.it, encoded.candidates[0]] = 1.0
        return a


def test_the_layer_2_finding_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    real = page.models()
    fake = {**real, "baseline": _LooksAtAnimal(real["baseline"])}
    monkeypatch.setattr(page, "models", lambda: fake)
    with pytest.raises(ClaimError, match="layer 2"):
        page._where_it_looks()


def test_accuracy_and_weight_formats() -> None:
    assert page.accuracy(0.7387) == "73.9%" and page.weight(1.0) == "1.00"


class _StreetOnTop:
    """The hand-made sentence, except that "it" gives "street" the most weight."""

    def weights_of(self, token: str) -> dict[str, float]:
        return {"The": 0.1, "animal": 0.2, "street": 0.7}


def test_the_motivation_page_s_hand_made_claim_is_checked(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    shown = motivation.values(project)["exercise_1"]
    assert motivation._hand_made() == {"animal": shown["animal"], "street": shown["street"]}
    monkeypatch.setattr(motivation, "it_animal_sentence", _StreetOnTop)
    with pytest.raises(ClaimError, match=r"motivation\.md.*tallest bar"):
        motivation._hand_made()
