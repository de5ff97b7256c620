"""The learned-attention models for the reader's browser: the committed models, exported next to the page that shows them.

A page shows the widget with ``<div class="qkv-learned-widget" data-model="coreference"></div>`` (or
``"referent"``); the build writes ``learned-model-<task>.json`` into that page's folder, and the
widget (docs/assets/javascripts/learned/) fetches it from there: the page's own files, no other host.

An exported model is `qkv.learning.saved.model_data` of the committed model (seed 0, the seed the
page shows) without its training-time ``check``, every weight rounded to `DECIMALS[task]` decimal
places and written as the integer w · 10^decimals (gzip: about 10 KB and 28 KB instead of 49 KB and 90 KB
at full precision). `exported_model` and the browser (model.js `decoded`) both divide each integer by
10^decimals, a correctly rounded IEEE division: numpy and the browser compute on the same weights.
`sentences` adds what the widget builds a sentence from: the task's frames and word lists, and what is
held out of training.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from qkv.learning import referent_sentences as r
from qkv.learning import sentences as s
from qkv.learning.saved import load_model
from qkv.learning.training import CoreferenceModel

TASKS: tuple[str, ...] = ("coreference", "referent")
# Decimal places of an exported weight (|w| < 3): no answer over the task's held-out set changes, and no
# probability by more than half the widget's last digit (0.1 %). The second task's readout is the
# sharper one: at 5 places its probabilities move by 1.1e-4 at most, the first task's by 7.8e-6 at 3.
DECIMALS = {"coreference": 3, "referent": 5}
WIDGET = re.compile(r'<div\b[^>]*\bclass="[^"]*\bqkv-learned-widget\b[^"]*"[^>]*>')
MODEL_ATTRIBUTE = re.compile(r'\bdata-model="([^"]*)"')


def committed_path(results_dir: Path, task: str) -> Path:
    """The committed model of `task` (benchmarks/learned_attention.py writes it)."""
    return results_dir / f"learned_model_{task}.json"


def file_name(task: str) -> str:
    """The exported model's file name, in the folder of the page that shows it."""
    return f"learned-model-{task}.json"


def _scaled(values: Any, decimals: int) -> Any:
    """`values` rounded to `decimals` places, as the integers value · 10^decimals (nested lists)."""
    return np.rint(np.asarray(values, dtype=np.float64) * 10**decimals).astype(np.int64).tolist()


def _sentences(task: str) -> dict[str, Any]:
    """The frames and word lists the widget builds sentences from, and what training never saw."""
    if task == "coreference":
        return {
            "frames": list(s.FRAMES),
            "nouns": {"animal": list(s.ANIMALS), "place": list(s.PLACES)},
            "adjectives": {"animal": list(s.ANIMAL_ADJECTIVES), "place": list(s.PLACE_ADJECTIVES)},
            "heldout_triples": sorted(list(t) for t in s.heldout_triples()),
            "article": [s.ARTICLE_SENTENCE, s.ARTICLE_TWIN],
        }
    return {
        "frames": list(r.FRAMES),
        "nouns": {kind: list(r.NOUNS_BY_KIND[kind]) for kind in r.KINDS},
        "adjectives": {kind: list(r.ADJECTIVES[kind]) for kind in r.KINDS},
        "prefixes": list(r.PREFIXES),
        "intensifiers": list(r.INTENSIFIERS),
        "after_nouns": list(r.AFTER_NOUNS),
        # (noun, adjective): never the answer with that adjective in training; (frame, adjective): never together
        "heldout_referents": [[noun, j] for noun in r.NOUNS for kind in r.KINDS for j in r.ADJECTIVES[kind]
                              if noun in r.NOUNS_BY_KIND[kind] and r.heldout_referent(noun, j)],
        "heldout_frames": [[frame, j] for frame in range(len(r.FRAMES)) for kind in r.KINDS for j in r.ADJECTIVES[kind]
                           if r.heldout_pair(frame, j)],
        "article": list(r.PROBES),
    }


def export(results_dir: Path, task: str) -> dict[str, Any]:
    """The committed model of `task` as the browser reads it: `model_data` with its weights as integers (and
    their ``decimals``), without
    ``check`` (the probes the training run verified; the widget does not read them), and `sentences`."""
    if task not in TASKS:
        raise ValueError(f"no learned model {task!r}: the tasks are {', '.join(TASKS)}")
    data: dict[str, Any] = json.loads(committed_path(results_dir, task).read_text(encoding="utf-8"))
    data.pop("check", None)
    data["decimals"] = DECIMALS[task]
    data["parameters"] = {name: _scaled(value, DECIMALS[task]) for name, value in data["parameters"].items()}
    data["sentences"] = _sentences(task)
    return data


def exported_model(data: dict[str, Any]) -> CoreferenceModel:
    """The exported model as numpy computes with it (the weights the browser has: each integer / 10^decimals)."""
    scale = 10 ** data["decimals"]
    return load_model({**data, "parameters": {name: np.asarray(value, dtype=np.float64) / scale
                                              for name, value in data["parameters"].items()}})


def text(data: dict[str, Any]) -> str:
    """The exported JSON, compact."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def tasks_shown(html: str) -> list[str]:
    """The tasks whose widget `html` holds (in the order they appear, each once); an unknown one is a ValueError."""
    found: list[str] = []
    for tag in WIDGET.findall(html):
        model = MODEL_ATTRIBUTE.search(tag)
        task = model.group(1) if model else ""
        if task not in TASKS:
            raise ValueError(f'a qkv-learned-widget needs data-model="coreference" or "referent", got {tag}')
        if task not in found:
            found.append(task)
    return found


def write_next_to(html: str, page_file: Path, results_dir: Path) -> list[Path]:
    """Write the model of every widget of `html` beside the built page `page_file`; the files written."""
    written = []
    for task in tasks_shown(html):
        target = page_file.parent / file_name(task)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text(export(results_dir, task)), encoding="utf-8")
        written.append(target)
    return written
