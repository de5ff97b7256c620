"""A trained model as plain JSON data and back: the committed model the site shows, and the browser widget reads.

`model_data(model)` gives a dict of lists (JSON as it is): the task, the options, the vocabulary,
the readout's words and every parameter at full float64 precision (Python writes the shortest
decimal that reads back to the same double, so a load is exact). `load_model(data)` (a dict, a
JSON string's path, or a `pathlib.Path`) builds a `CoreferenceModel` without history (`trained` False) from it.

>>> from qkv.learning import train_referent
>>> model = train_referent(seed=0, steps=60)
>>> again = load_model(model_data(model))
>>> sentence = "The animal didn't cross the street because it was too tired"
>>> bool(np.allclose(again.attention(sentence), model.attention(sentence), rtol=1e-12, atol=0))
True
>>> load_model({"format": "something else"})
Traceback (most recent call last):
...
ValueError: not a saved qkv.learning model: format is 'something else', expected 'qkv.learning model 1'
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np

from qkv.learning.network import parameter_names
from qkv.learning.tasks import TASKS
from qkv.learning.training import CoreferenceModel, Options, make_options

FORMAT = "qkv.learning model 1"


def model_data(model: CoreferenceModel) -> dict[str, Any]:
    """The model as JSON-ready data: format, options, vocabulary, outputs, parameters (nested lists of floats)."""
    return {
        "format": FORMAT,
        "options": dataclasses.asdict(model.options),
        "vocabulary": list(model.task.vocabulary),
        "outputs": None if model.task.outputs is None else list(model.task.outputs),
        "parameters": {name: value.tolist() for name, value in model.parameters.items()},
    }


def load_model(source: dict[str, Any] | str | Path) -> CoreferenceModel:
    """A `CoreferenceModel` (no history) from `model_data`'s dict, or from a JSON file holding it."""
    if isinstance(source, (str, Path)):
        data = json.loads(Path(source).read_text(encoding="utf-8"))
    elif isinstance(source, dict):
        data = source
    else:
        raise TypeError(f"source must be a dict or the path of a JSON file, got {type(source).__name__}")
    if data.get("format") != FORMAT:
        raise ValueError(f"not a saved qkv.learning model: format is {data.get('format')!r}, expected {FORMAT!r}")
    fields = {f.name for f in dataclasses.fields(Options)}
    given = dict(data["options"])
    unknown = sorted(set(given) - fields)
    if unknown:
        raise ValueError(f"saved options {unknown} are not options of this qkv.learning (it has {sorted(fields)})")
    seed = given.pop("seed")
    options = make_options(seed, **given)
    task = TASKS[options.task]
    if list(data["vocabulary"]) != list(task.vocabulary):
        raise ValueError(f"the saved vocabulary is not the {task.name} task's vocabulary of this qkv.learning")
    names = parameter_names(options.n_layers, options.projections)
    if sorted(data["parameters"]) != sorted(names):
        raise ValueError(f"saved parameters {sorted(data['parameters'])}, expected {sorted(names)}")
    params = {name: np.array(data["parameters"][name], dtype=np.float64) for name in names}
    return CoreferenceModel(options, params, None)
