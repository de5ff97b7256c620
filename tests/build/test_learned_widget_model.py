"""The learned models the browser gets (qkv_site.builder.learned_models) and the JavaScript forward pass
that runs them (docs/assets/javascripts/learned/model.js), against qkv.learning's numpy."""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from learned_widget_support import RESULTS, sentences
from repository import ROOT

from qkv.learning.ablation import _remove
from qkv.learning.rollout import rollout_weights
from qkv.learning.saved import load_model
from qkv_site.builder.learned_models import TASKS, committed_path, export, exported_model, tasks_shown, text
from qkv_site.formulas.engine import NODE

LIMIT = 100_000  # bytes of an exported model, gzip
SHOWN = 5e-4  # half the last digit of a probability as the widget shows it (0.1 %)


@pytest.fixture(scope="module")
def exported() -> dict[str, dict]:
    return {task: export(RESULTS, task) for task in TASKS}


def expected_cases(exported: dict[str, dict]) -> list[dict]:
    models = {task: exported_model(data) for task, data in exported.items()}
    cases = []
    for n, (task, sentence, status) in enumerate(sentences()):
        model = models[task]
        batch = model.batch([sentence])
        fwd = model.forward(batch)
        weights = np.stack([layer.weights[0] for layer in fwd.layers])
        words = model.tokens(sentence)
        it = words.index("it")
        cut = (it + 3 + n) % len(words)
        cut = None if cut == it else cut
        layers = [[1, 2], [1], [2]][n % 3]
        case = {"task": task, "sentence": sentence, "words": words, "weights": weights.tolist(),
                "rollout": rollout_weights(weights).tolist(), "probabilities": fwd.probabilities[0].tolist(),
                "answer": model.resolve(sentence), "cut": cut, "layers": layers, "heldout": status}
        if cut is not None:
            def edit(layer: int, w: np.ndarray, cut: int = cut, layers: list[int] = layers) -> np.ndarray:
                return _remove(w, np.array([it]), np.array([cut])) if layer in layers else w
            ablated = model.forward(batch, edit=edit)
            case["ablated_weights"] = np.stack([layer.weights[0] for layer in ablated.layers]).tolist()
            case["ablated_probabilities"] = ablated.probabilities[0].tolist()
        cases.append(case)
    return cases


@pytest.mark.parametrize("task", TASKS)
def test_an_exported_model_is_under_100_kb_gzip_and_reads_back_as_a_saved_model(exported: dict[str, dict], task: str) -> None:
    raw = text(exported[task]).encode("utf-8")
    assert len(gzip.compress(raw, 9)) <= LIMIT, len(gzip.compress(raw, 9))
    model = exported_model(json.loads(raw))
    assert model.options.task == task and model.options.seed == 0
    committed = load_model(committed_path(RESULTS, task))
    for name, weights in model.parameters.items():  # each weight is the committed one, rounded to its decimals
        assert np.abs(weights - committed.parameters[name]).max() <= 0.5 * 10.0 ** -exported[task]["decimals"] * (1 + 1e-9)


@pytest.mark.parametrize("task", TASKS)
def test_rounding_the_weights_changes_no_held_out_answer_and_no_probability_by_half_a_shown_digit(exported: dict[str, dict], task: str) -> None:
    rounded, committed = exported_model(exported[task]), load_model(committed_path(RESULTS, task))
    batch = committed.task.heldout()
    a, b = rounded.forward(batch).probabilities, committed.forward(batch).probabilities
    assert (a.argmax(axis=1) == b.argmax(axis=1)).all()
    assert np.abs(a - b).max() < SHOWN
    for probe in committed.task.probes:
        assert rounded.resolve(probe) == committed.resolve(probe)


def test_a_page_names_the_models_its_widgets_show() -> None:
    html = '<div class="qkv-learned-widget" data-model="referent"></div><div data-model="coreference" class="x qkv-learned-widget"></div>'
    assert tasks_shown(html) == ["referent", "coreference"]
    assert tasks_shown("<p>no widget</p>") == []
    with pytest.raises(ValueError, match="data-model"):
        tasks_shown('<div class="qkv-learned-widget" data-model="gpt"></div>')


def test_the_javascript_forward_pass_equals_numpy_on_every_tested_sentence(exported: dict[str, dict], tmp_path: Path) -> None:
    cases = expected_cases(exported)
    assert len(cases) >= 20 and {c["heldout"] for c in cases} >= {"train", "triple", "referent", "pair", "both", "other"}
    data = tmp_path / "expected.json"
    data.write_text(json.dumps({"models": exported, "cases": cases}), encoding="utf-8")
    result = subprocess.run([str(NODE), "--test", "--test-reporter=tap", "tests/js/learned_model.test.mjs"], cwd=ROOT, capture_output=True, text=True,
                            timeout=120, env={"QKV_LEARNED_EXPECTED": str(data), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout and "# skipped 0" in result.stdout and "# pass 3" in result.stdout, result.stdout[-2000:]
    assert "largest difference from numpy" in result.stdout
