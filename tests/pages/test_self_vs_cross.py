"""The page “Self-Attention vs Cross-Attention”: its figure's alt text says only what the weights drawn
show, its caption's diagonal and exercise 2's shares are checked against the weights, and its programs compute
the values its prose prints."""

from __future__ import annotations

import re

import numpy as np
import pytest
from page_sources import DOCS_SRC, run_program
from repository import the_project
from site_pages import rendered

from qkv_site.pages import self_vs_cross
from qkv_site.project import Project
from qkv_site.values.claims import ClaimError


def alt_text(lang: str) -> str:
    alts = re.findall(r"!\[(.*?)\]\(figures/self_vs_cross\.(?:light|dark)\.svg", rendered("self-vs-cross.md", lang, the_project()))
    assert len(alts) == 2 and alts[0] == alts[1], alts
    return alts[0]


def test_the_alt_text_says_only_what_the_weights_show() -> None:
    left, right = alt_text("en").split("On the right")
    assert "no row's largest weight on the diagonal" in left and "“love” weighs “I” and “cats” most, equally" in left
    assert "every row's largest weight on the diagonal" in right and "“猫” weighs “cats” most" in right
    zh = alt_text("zh")
    assert zh.index("每一行最大的权重都不在对角线上") < zh.index("右边") < zh.index("每一行最大的权重都在对角线上")
    assert "brightest" not in alt_text("en") and "最亮" not in zh  # the light scheme draws the largest weight darkest
    assert "“love” 看得最重的是 “I” 和 “cats”（一样重）" in zh


def test_the_diagonal_flag_follows_the_weights() -> None:
    assert self_vs_cross.diagonal(np.eye(3) + 0.1) == "all"
    assert self_vs_cross.diagonal(np.array([[0.2, 0.8], [0.5, 0.5]])) == "some"
    assert self_vs_cross.diagonal(np.array([[0.2, 0.8], [0.8, 0.2]])) == "none"
    with pytest.raises(ValueError, match=r"non-empty 2-D"):
        self_vs_cross.brightest(np.array([0.5, 0.5]))


def test_cross_weights_off_the_diagonal_stop_the_caption(monkeypatch: pytest.MonkeyPatch) -> None:
    real = self_vs_cross.translation_example()

    class Shuffled:
        source_tokens, target_tokens, encoder = real.source_tokens, real.target_tokens, real.encoder
        cross = type("Cross", (), {"weights": real.cross.weights[::-1]})  # "我" now looks at "cats"

    monkeypatch.setattr(self_vs_cross, "translation_example", lambda: Shuffled)
    with pytest.raises(ClaimError, match=r"self-vs-cross.md: .*look at the diagonal"):
        self_vs_cross._figure()


def test_a_mask_that_hides_nothing_stops_exercise_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(self_vs_cross, "causal_mask", lambda n: np.ones((n, n), dtype=bool))
    with pytest.raises(ClaimError, match=r"self-vs-cross.md: .*love no longer sees cats"):
        self_vs_cross._exercise_2()


# The programs the page shows ----------------------------------------------------------------------


def test_self_vs_cross_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv import causal_mask
    from qkv_site.pages.self_vs_cross import values
    from qkv_site.values.formatting import percent

    shown = values(project)["exercise_2"]
    exercise_2, _ = run_program(DOCS_SRC / "self-vs-cross" / "exercise_2.py")
    tokens = exercise_2["encoder"].tokens
    love = tokens.index("love")
    for name, row in (("unmasked", exercise_2["encoder"].weights[love]), ("masked", exercise_2["masked"][love])):
        assert [(s.token, s.share) for s in shown[name]] == [(t, percent(w)) for t, w in zip(tokens, row, strict=True)]
    exercise_1, printed = run_program(DOCS_SRC / "self-vs-cross" / "exercise_1.py")
    rows, columns = exercise_1["x_decoder"].shape[0], exercise_1["x_encoder"].shape[0]
    assert exercise_1["weights"].shape == (rows, columns) and printed.split("\n")[1] == "True"
    _, printed = run_program(DOCS_SRC / "self-vs-cross" / "causal_mask.py")
    assert printed.strip() == str(causal_mask(4).astype(int))
