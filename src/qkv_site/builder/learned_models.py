"""The learned-attention models for the reader's browser: the committed models, exported next to the page that shows them.

A page shows the widget with ``<div class="qkv-learned-widget" data-model="coreference"></div>`` (or
``"referent"``); the build writes ``learned-model-<task>.json`` into that page's folder, and the
widget (docs/assets/javascripts/learned/) fetches it from there when the reader first uses it (until then it
shows the numbers `learned_first` wrote into the page): the page's own files, no other host.

An exported model is `qkv.learning.saved.model_data` of the committed model (seed 0, the seed the
page shows) without its training-time ``check``, every weight rounded to `DECIMALS[task]` decimal
places, the integer n = w · 10^decimals. The matrices are written packed (`packed`): their shapes,
and their integers zigzagged (0, -1, 1, -2, … as 0, 1, 2, 3, …) and cut in two, the low
`LOW_BYTES[task]` bytes of each (nearly random: as base64, 6 bits a character, which gzip keeps at
their size) and what is left above them (small numbers, one base64 digit a weight, which gzip packs
to a few bits each).
Gzip: 8.4 and 22.5 KB for the two models instead of 10.2 and 28.7 KB as decimal integers, 49 and
90 KB at full precision. `exported_model` and the browser (model.js `decoded`) both unpack the same
integers and divide each by 10^decimals, a correctly rounded IEEE division: numpy and the browser
compute on the same weights.
`sentences` adds what the widget builds a sentence from: the task's frames and word lists, and what is
held out of training.
"""

from __future__ import annotations

import base64
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
# Bytes of each packed integer written as base64 bytes: what is left above them must be under 64 (one base64
# digit). The integers are under 2,900 and 300,000 in size: zigzagged, under 2^13 and 2^20.
LOW_BYTES = {"coreference": 1, "referent": 2}
DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"  # base64's, in its order
WIDGET = re.compile(r'<div\b[^>]*\bclass="[^"]*\bqkv-learned-widget\b[^"]*"[^>]*>')
MODEL_ATTRIBUTE = re.compile(r'\bdata-model="([^"]*)"')


def committed_path(results_dir: Path, task: str) -> Path:
    """The committed model of `task` (benchmarks/learned_attention.py writes it)."""
    return results_dir / f"learned_model_{task}.json"


def file_name(task: str) -> str:
    """The exported model's file name, in the folder of the page that shows it."""
    return f"learned-model-{task}.json"


def packed(matrices: dict[str, np.ndarray], low_bytes: int) -> dict[str, Any]:
    """Matrices of integers as the page's file holds them: their ``shapes``, and all their integers, one matrix
    after the other (each row by row), zigzagged, the low ``low_bytes`` bytes of each (little-endian) as one
    base64 text (``low``) and the rest as one base64 digit each (``high``).

    >>> packed({"a": np.array([[0, -1, 1], [-2, 300, -129]]), "b": np.array([[5]])}, 1)
    {'shapes': {'a': [2, 3], 'b': [1, 1]}, 'low': 'AAECA1gBCg==', 'high': 'AAAACBA'}
    >>> {name: m.tolist() for name, m in unpacked(packed({"a": np.array([[0, -1, 1], [-2, 300, -129]])}, 1)).items()}
    {'a': [[0, -1, 1], [-2, 300, -129]]}
    """
    if any(m.ndim != 2 for m in matrices.values()):
        raise ValueError(f"packed parameters are matrices, got shapes {[m.shape for m in matrices.values()]}")
    integers = np.concatenate([m.astype(np.int64).ravel() for m in matrices.values()])
    zigzag = np.where(integers >= 0, 2 * integers, -2 * integers - 1)
    high = zigzag >> (8 * low_bytes)
    if high.size and high.max() >= len(DIGITS):
        raise ValueError(f"an integer of {int(np.abs(integers).max())} does not fit {low_bytes} bytes and one base64 digit")
    low = (zigzag - (high << (8 * low_bytes))).astype(f"<u{low_bytes}")
    return {"shapes": {name: list(m.shape) for name, m in matrices.items()},
            "low": base64.b64encode(low.tobytes()).decode("ascii"), "high": "".join(DIGITS[h] for h in high)}


def unpacked(packed: dict[str, Any]) -> dict[str, np.ndarray]:
    """The integer matrices of `packed` (model.js `decoded` reads them the same way)."""
    high = np.array([DIGITS.index(h) for h in packed["high"]], dtype=np.int64)
    low = np.frombuffer(base64.b64decode(packed["low"]), dtype=np.uint8).astype(np.int64)
    width = low.size // max(high.size, 1)
    zigzag = high
    for byte in range(width - 1, -1, -1):
        zigzag = zigzag * 256 + low[byte::width]
    integers = np.where(zigzag % 2 == 1, -(zigzag + 1) // 2, zigzag // 2)
    matrices, start = {}, 0
    for name, (rows, columns) in packed["shapes"].items():
        matrices[name] = integers[start:start + rows * columns].reshape(rows, columns)
        start += rows * columns
    if start != integers.size:
        raise ValueError(f"the packed shapes hold {start} numbers, the packed text {integers.size}")
    return matrices


def _scaled(values: Any, decimals: int) -> np.ndarray:
    """`values` rounded to `decimals` places, as the integers value · 10^decimals."""
    scaled: np.ndarray = np.rint(np.asarray(values, dtype=np.float64) * 10**decimals).astype(np.int64)
    return scaled


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
    """The committed model of `task` as the browser reads it: `model_data` with its weights as `packed` integers
    (and their ``decimals``), without
    ``check`` (the probes the training run verified; the widget does not read them), and `sentences`."""
    if task not in TASKS:
        raise ValueError(f"no learned model {task!r}: the tasks are {', '.join(TASKS)}")
    data: dict[str, Any] = json.loads(committed_path(results_dir, task).read_text(encoding="utf-8"))
    data.pop("check", None)
    data["decimals"] = DECIMALS[task]
    data["parameters"] = packed({name: _scaled(value, DECIMALS[task]) for name, value in data["parameters"].items()},
                                LOW_BYTES[task])
    data["sentences"] = _sentences(task)
    return data


def exported_model(data: dict[str, Any]) -> CoreferenceModel:
    """The exported model as numpy computes with it (the weights the browser has: each integer / 10^decimals)."""
    scale = 10 ** data["decimals"]
    return load_model({**data, "parameters": {name: value.astype(np.float64) / scale
                                              for name, value in unpacked(data["parameters"]).items()}})


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
