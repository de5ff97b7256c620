"""The page “让模型自己学会注意 / Watching a model learn to attend”: its values come from the committed runs (nothing
is trained while the site is built), each sentence's check fires when the results no longer support it, and its
programs compute the values its prose prints."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator

import pytest
from page_sources import DOCS_SRC, run_program

from qkv.learning import sentences as s
from qkv_site import learned_results
from qkv_site.figures.registry import FIGURES, render_svg
from qkv_site.pages import learned_attention as page
from qkv_site.pages import motivation
from qkv_site.project import Project
from qkv_site.values.claims import ClaimError

LEARNED_FIGURES = ("learned_it", "learned_training", "learned_snapshots", "learned_scaling", "learned_referent")


@pytest.fixture
def runs(project: Project) -> learned_results.LearnedResults:
    """A private copy of the committed results, to be edited by a test."""
    return copy.deepcopy(learned_results.results(project))


@pytest.fixture
def no_training(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Any step of an optimiser (and so any training) fails the test."""
    from qkv.learning.adam import Adam
    from qkv.learning.sgd import SGD

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the site trained a model while it was built")

    monkeypatch.setattr(Adam, "step", refuse)
    monkeypatch.setattr(SGD, "step", refuse)
    yield


def test_the_values_are_read_from_the_committed_results(project: Project, no_training: None) -> None:
    page.values.cache_clear()
    try:
        shown = page.values(project)
    finally:
        page.values.cache_clear()
    committed = learned_results.results(project)
    assert shown["task"]["sentences"] == f"{len(s.corpus(heldout=False)) + len(s.corpus(heldout=True)):,}"
    finals = committed.values("referent", "final")
    assert shown["runs"]["referent"]["range"] == f"{min(finals) * 100:.1f}%–{max(finals) * 100:.1f}%"
    assert [row["step"] for row in shown["snapshots"]] == [str(t) for t in committed.shown("baseline")["snapshots"]["steps"]]
    assert shown["looks"]["harmless"] == str(len(committed.finding("baseline_ablation_harmless")["holds_in"]))


@pytest.mark.parametrize("figure", LEARNED_FIGURES)
def test_the_figures_are_drawn_without_training(figure: str, project: Project, no_training: None) -> None:
    assert render_svg(FIGURES[figure], "en", "light", project).startswith(b"<?xml")


def test_the_motivation_caption_uses_the_shown_seed(project: Project) -> None:
    trained = motivation.values(project)["trained"]
    shown = learned_results.results(project).shown("baseline")
    assert trained["accuracy"] == page.accuracy(shown["final"])
    assert trained["train"] == f"{len(s.corpus(heldout=False)):,}"


def test_a_finding_stated_as_general_must_be_robust(runs: learned_results.LearnedResults) -> None:
    for found in runs.data["findings"]:
        if found["key"] == "scale_1_never_90":
            found["robust"] = False
    with pytest.raises(ClaimError, match="never reaches 90"):
        page._scaling(runs)


def test_a_finding_stated_for_some_seeds_must_not_be_robust(runs: learned_results.LearnedResults) -> None:
    for found in runs.data["findings"]:
        if found["key"] == "tied_never_99":
            found["robust"] = True
    with pytest.raises(ClaimError, match="tied W_Q = W_K never reaches 99"):
        page._tied(runs)


def test_counts_that_differ_between_kernels_are_printed_as_a_range(runs: learned_results.LearnedResults) -> None:
    counts = runs.holds_in("sqrt_learns")
    assert page.some(runs, "sqrt_learns") == (str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}")


def test_the_shown_seed_s_adjective_route_is_checked(runs: learned_results.LearnedResults, project: Project) -> None:
    raw = runs.shown("baseline")["probes"]["tired"]["raw"]
    animal = runs.shown("baseline")["probes"]["tired"]["tokens"].index("animal")
    raw[1] = [1.0 if j == animal else 0.0 for j in range(len(raw[1]))]  # layer-2 "it" on "animal"
    with pytest.raises(ClaimError, match="layer-2 'it' at the adjective"):
        page._where_it_looks(runs, project)


def test_the_control_caveat_is_checked(runs: learned_results.LearnedResults) -> None:
    for record in runs.records("referent"):
        record["ablation"]["all"]["control_weight"] = record["ablation"]["all"]["referent_weight"]
    with pytest.raises(ClaimError, match="control edge's removed weight"):
        page._referent(runs)


def test_every_sentence_right_is_checked(runs: learned_results.LearnedResults) -> None:
    runs.records("scale 1/d_k")[3]["correct"] -= 1
    with pytest.raises(ClaimError, match="every held-out sentence right"):
        page._scaling(runs)


def test_the_sgd_finding_is_checked(runs: learned_results.LearnedResults) -> None:
    for record in runs.records("SGD scale 1/d_k"):
        record["w_q_norm"]["end"][0] = 2 * record["w_q_norm"]["start"][0]
    with pytest.raises(ClaimError, match="hardly moves"):
        page._sgd(runs)


def test_accuracy_weight_and_range_formats() -> None:
    assert page.accuracy(0.7387) == "73.9%" and page.weight(1.0) == "1.00"
    assert page.span([0.5, 0.75]) == "50.0%–75.0%" and page.span([1.0, 1.0]) == "100.0%"


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


# The programs the page shows ----------------------------------------------------------------------


def test_learned_attention_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv_site.pages.learned_attention import accuracy, span, values

    shown = values(project)
    _, printed = run_program(DOCS_SRC / "learned-attention" / "how_computed.py")
    lines = printed.splitlines()
    low, high = (float(x) for x in re.findall(r"seeds: (\S+) to (\S+)$", lines[0])[0])
    assert span([low, high]) == shown["runs"]["baseline"]["range"]
    assert lines[1].split() == ["layer", "1", "cross", shown["looks"]["layer1_cross"], "animal:", shown["looks"]["layer2_animal"]]
    assert lines[2].split() == ["layer", "2", "tired", shown["looks"]["layer2_adjective"], "animal:",
                                shown["looks"]["layer2_animal"]]

    for program in ("scaling.py", "variants.py"):
        _, printed = run_program(DOCS_SRC / "learned-attention" / program)
        for line in printed.splitlines():
            name, finals = (part.strip() for part in line.split("|")[:2])
            low, high = (float(x) for x in re.findall(r": (\S+) to (\S+)$", finals)[0])
            assert span([low, high]) == shown["runs"][name]["range"], name
            if "median:" in line:
                assert accuracy(float(line.rsplit(" ", 1)[1])) == shown["runs"][name]["median"], name

    _, printed = run_program(DOCS_SRC / "learned-attention" / "exercise_1.py")
    resolved = re.findall(r"-> (\w+)$", printed, re.MULTILINE)
    tops = re.findall(r"^ layer (\d) (\S+) (\S+)$", printed, re.MULTILINE)
    assert resolved == [row["resolved"] for row in shown["exercise_1"]]
    assert [(word, w) for _, word, w in tops] == [
        pair for row in shown["exercise_1"] for pair in ((row["top_1"], row["top_1_w"]), (row["top_2"], row["top_2_w"]))]

    _, printed = run_program(DOCS_SRC / "learned-attention" / "exercise_2.py")
    truth = ["animal", "street", "animal", "street"]
    lines = printed.splitlines()
    answers = [line.split(" | ")[1] for line in lines[:4]]
    assert str(sum(a == t for a, t in zip(answers, truth, strict=True))) == shown["exercise_2"]["two_right"]
    one_layer = [float(x) for x in lines[4].split("[")[1].strip("]").split(",")]
    assert span(one_layer) == shown["one_layer"]["range"]
