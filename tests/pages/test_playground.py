"""The page “注意力实验台 / Attention playground”: the limits its note quotes are the playground's own, the count
of presets it names is checked, what it tells the reader to try does what it says (with qkv's math), and the
playground's JavaScript math passes node's test runner (tests/js/). The playground in Chromium:
tests/browser/test_browser_playground.py and test_browser_playground_polish.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import numpy as np
import pytest
from page_sources import source
from repository import LANGUAGES, ROOT
from site_pages import rendered

from qkv import scaled_dot_product_attention
from qkv_site.pages import playground
from qkv_site.playground_presets import presets
from qkv_site.project import Project
from qkv_site.values.claims import ClaimError


def test_a_preset_within_the_manual_limit_stops_the_note(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(playground, "MAX_TOKENS", 12)  # the note says the preset goes beyond the manual limit
    with pytest.raises(ValueError, match="goes beyond the manual limit of 12"):
        playground.values.__wrapped__(project)


def test_a_script_without_its_limit_stops_the_note() -> None:
    assert playground.max_cell("const LIMIT = 1000; // cells\n") == 1000
    with pytest.raises(ValueError, match="const LIMIT"):
        playground.max_cell("const LIMITS = {};")


# The playground's JavaScript math, under node (tests/js/) -----------------------------------------


def test_node_tests_of_the_playground_math_pass() -> None:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is not on PATH; CI must run the JavaScript tests")
        pytest.skip("node is not on PATH: the playground's JavaScript tests (node --test tests/js/) cannot run")
    result = subprocess.run([node, "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"node --test tests/js/ failed:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}"
    assert "# fail 0" in result.stdout and "# pass 0" not in result.stdout, result.stdout[-2000:]


# The limits the page quotes -----------------------------------------------------------------------


def test_playground_limits_are_the_ones_its_script_reads(project: Project) -> None:
    import json

    from qkv.examples import it_animal_sentence
    from qkv_site.pages.playground import SCRIPT, values

    shown = values(project)
    data = json.loads(re.search(r">(.*)</script>", shown["presets_script"]).group(1).replace("<\\/", "</"))
    assert (shown["max_tokens"], shown["max_dim"]) == (str(data["limits"]["max_tokens"]), str(data["limits"]["max_dim"]))
    assert shown["animal_tokens"] == str(len(data["presets"]["it-animal"]["tokens"])) == str(len(it_animal_sentence().tokens))
    assert "parseCell(cell, LIMIT)" in (project.docs_dir / SCRIPT).read_text(encoding="utf-8")  # the limit the note quotes is the one applied
    for lang in LANGUAGES:
        assert rendered("playground.md", lang, project).count(shown["presets_script"]) == 1


# “The three presets” ------------------------------------------------------------------------------


def test_the_count_of_presets_the_page_names_is_checked(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from qkv_site.pages import playground
    from qkv_site.playground_presets import presets

    assert len(presets()["presets"]) == 3
    for lang, words in (("zh", "三个预设"), ("en", "the three presets")):
        assert words in source(lang, "playground.md")
    real = presets()
    four = {**real["presets"], "extra": real["presets"]["article"]}  # type: ignore[dict-item]
    monkeypatch.setattr(playground, "presets", lambda: {**real, "presets": four})
    playground.values.cache_clear()
    try:
        with pytest.raises(ClaimError, match="the three presets"):
            playground.values(project)
    finally:
        monkeypatch.undo()
        playground.values.cache_clear()


# What the page tells the reader to try ------------------------------------------------------------


def attention_weights(preset: dict, scale: float | None = None, **changes) -> np.ndarray:
    """The playground's weights for a preset (its math is qkv's, tests/js holds it to that)."""
    tables = {name: np.asarray(changes.get(name, preset[name]), dtype=float) for name in ("x", "w_q", "w_k", "w_v")}
    q, k, v = (tables["x"] @ tables[w] for w in ("w_q", "w_k", "w_v"))
    _, weights = scaled_dot_product_attention(q, k, v, scale=scale)
    return weights


def test_the_saturation_advice_saturates_and_all_equal_cells_do_not() -> None:
    article_preset = presets()["presets"]["article"]
    w_q = np.asarray(article_preset["w_q"], dtype=float)
    fives = np.where(w_q == 1, 5.0, w_q)  # "every 1 in W_Q becomes 5, the 0s stay"
    unscaled = attention_weights(article_preset, scale=1.0, w_q=fives)
    assert unscaled[0].argmax() == 0 and unscaled[0, 0] > 0.99, "the row of “I” should put almost all weight on “I”"
    scaled = attention_weights(article_preset, w_q=fives)  # ÷ √d_k
    assert 0.5 < scaled[0, 0] < unscaled[0, 0], "÷ √d_k should flatten the row only a little"
    same = np.full_like(np.asarray(article_preset["x"], dtype=float), 5.0)
    assert np.allclose(attention_weights(article_preset, scale=1.0, x=same), 0.5), "equal cells give even weights"
    for lang, old, new in (("zh", "（比如都改成 5）", "每个 1 都改成 5"), ("en", "(say, all 5s)", "change every 1 in $W_Q$ to 5")):
        text = source(lang, "playground.md")
        assert old not in text and new in text, f"{lang}/playground.md: the saturation advice"


def test_the_no_projection_preset_is_symmetric_until_love_changes() -> None:
    preset = presets()["presets"]["no-projection"]
    weights = attention_weights(preset)
    assert np.allclose(weights, weights.T), "the preset's weights should be exactly symmetric"
    changed = attention_weights(preset, x=[preset["x"][0], [0, 1, 1, 1]])
    assert not np.allclose(changed, changed.T), "the change the page suggests should break the symmetry"
    for lang, old, new in (
        ("zh", "但 Softmax 之后的权重不一定对称", "这个预设的权重也恰好对称"),
        ("en", "the weights after softmax need not be", "In this preset the weights happen to be symmetric too"),
    ):
        text = source(lang, "playground.md")
        assert old not in text and new in text and "$[0, 1, 1, 1]$" in text, f"{lang}/playground.md: the symmetry bullet"
