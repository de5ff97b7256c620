"""The page “缩放因子为什么是 √dₖ？”: its values stop the build when the data no longer support a sentence (the
saturation figure's caption and alt text among them), its programs compute the values its prose prints, its
exercise quotes the table's draw, and its gradient note states the figure's numbers."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from page_sources import DOCS_SRC, built_article, run_program
from repository import LANGUAGES

from qkv.analysis import DotProductVariance, ScalingStudy, dot_product_variance, scaling_study
from qkv_site.figures.softmax_saturation import D_KS
from qkv_site.pages import why_sqrt_dk
from qkv_site.project import Project
from qkv_site.values.claims import ClaimError
from qkv_site.values.formatting import number


@pytest.fixture(autouse=True)
def fresh_values() -> Iterator[None]:
    why_sqrt_dk.values.cache_clear()  # values() is cached: compute again from the changed data
    yield
    why_sqrt_dk.values.cache_clear()


@pytest.fixture(scope="module")
def own_values(project: Project) -> dict[str, Any]:
    """The page's values on its own data, computed once for the tests that read them or need them to hold
    (past values()'s cache, which the tests that change the data clear)."""
    return why_sqrt_dk.values.__wrapped__(project)


def test_the_values_hold_on_the_page_s_own_data(own_values: dict[str, Any]) -> None:
    assert own_values["gradient"]["above"] and own_values["variance_rows"]


def _with_unscaled_jacobian(factor: float, last_factor: float | None = None) -> Callable[..., ScalingStudy]:
    """scaling_study, with the unscaled Jacobian norm set to `factor` times the scaled one."""

    def changed(*args: Any, **kwargs: Any) -> ScalingStudy:
        study = scaling_study(*args, **kwargs)
        unscaled = study.jacobian_norm["sqrt_d_k"] * factor
        if last_factor is not None:
            unscaled[-1] = study.jacobian_norm["sqrt_d_k"][-1] * last_factor
        return replace(study, jacobian_norm={**study.jacobian_norm, "none": unscaled})

    return changed


def test_the_gradient_note_fails_when_the_unscaled_norm_is_nowhere_above(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(why_sqrt_dk, "scaling_study", _with_unscaled_jacobian(0.5))
    with pytest.raises(ClaimError, match=r"why-sqrt-dk\.md: .*unscaled Jacobian norm is above the scaled one"):
        why_sqrt_dk.values(project)


def test_the_gradient_note_fails_when_large_scores_do_not_saturate(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(why_sqrt_dk, "scaling_study", _with_unscaled_jacobian(0.5, last_factor=2.0))
    with pytest.raises(ClaimError, match=r"why-sqrt-dk\.md: .*saturate softmax"):
        why_sqrt_dk.values(project)


def test_the_variance_table_fails_when_the_draw_disagrees_with_d_k(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    def doubled(*args: Any, **kwargs: Any) -> DotProductVariance:
        study = dot_product_variance(*args, **kwargs)
        return replace(study, variance=2 * study.variance)

    monkeypatch.setattr(why_sqrt_dk, "dot_product_variance", doubled)
    with pytest.raises(ClaimError, match=r"why-sqrt-dk\.md: .*Var\[q·k\] = d_k"):
        why_sqrt_dk.values(project)


def test_exercise_3_fails_when_scaling_does_not_flatten_the_row(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(why_sqrt_dk, "scaling_factor", lambda strategy, d_k: 1.0)  # every scaling the same
    with pytest.raises(ClaimError, match=r"why-sqrt-dk\.md: .*flattest row"):
        why_sqrt_dk.values(project)


# The programs the page shows ----------------------------------------------------------------------


def test_why_sqrt_dk_programs_agree_with_the_values_the_prose_prints(own_values: dict[str, Any]) -> None:
    import math

    from qkv_site.figures.softmax_saturation import D_KS
    from qkv_site.figures.softmax_saturation import _study as figure_study
    from qkv_site.pages.why_sqrt_dk import D_KS_FIGURE
    from qkv_site.values.formatting import number

    shown = own_values
    page = DOCS_SRC / "why-sqrt-dk"
    variance, _ = run_program(page / "variance.py")  # the table's draw, as the reader's program makes it
    study = variance["study"]
    assert [(r.d_k, r.theory, r.measured, r.scaled) for r in shown["variance_rows"]] == [
        (str(d), str(d), number(v), number(s)) for d, v, s in zip(study.d_k, study.variance, study.scaled_variance, strict=True)
    ]
    strategies, printed = run_program(page / "strategies.py")
    lines = dict((line.split()[0], line.split()[1:]) for line in printed.splitlines())
    assert list(lines) == list(shown["strategies"])
    for strategy, (largest, entropy) in lines.items():  # the program rounds with round(), the table with number()
        assert float(largest) == float(shown["strategies"][strategy]["max_weight"]), strategy
        assert float(entropy) == float(shown["strategies"][strategy]["entropy"]), strategy
    measured = strategies["measured"]
    assert (shown["n_keys"], shown["strategy_d_k"]) == (str(measured.n_keys), str(measured.d_k[0]))
    assert shown["uniform_entropy"] == number(math.log(measured.n_keys))
    assert D_KS_FIGURE == D_KS  # the note quotes the figure's experiment
    curves = figure_study()
    unscaled, scaled = curves.jacobian_norm["none"], curves.jacobian_norm["sqrt_d_k"]
    above = [str(d) for d, u, s in zip(curves.d_k, unscaled, scaled, strict=True) if u > s]
    widest = list(curves.d_k).index(int(shown["gradient"]["widest_d_k"]))
    assert shown["gradient"]["above"] == above and widest == max(range(len(unscaled)), key=lambda i: unscaled[i] - scaled[i])
    assert (shown["gradient"]["unscaled"], shown["gradient"]["scaled"]) == (number(unscaled[widest]), number(scaled[widest]))
    exercise_1, _ = run_program(page / "exercise_1.py")
    i, draw, ex1 = exercise_1["i"], exercise_1["study"], shown["exercise_1"]
    assert (ex1["variance"], ex1["scaled"]) == (number(draw.variance[i]), number(draw.scaled_variance[i]))
    assert ex1["variance"] == shown["variance_rows"][i].measured  # the same draw as the table
    assert (ex1["std"], ex1["n_samples"]) == (number(exercise_1["std"]), f"{draw.n_samples:,}")
    assert int(ex1["unscaled_ratio"].replace(",", "")) == round(math.exp(exercise_1["std"]))
    exercise_2, _ = run_program(page / "exercise_2.py")
    ex2 = shown["exercise_2"]
    assert (ex2["measured"], ex2["divisor"]) == (number(exercise_2["dots"].var(ddof=1)), number(exercise_2["divisor"]))
    assert ex2["scaled"] == number((exercise_2["dots"] / exercise_2["divisor"]).var(ddof=1))
    _, printed = run_program(page / "exercise_3.py")
    for line in printed.splitlines():
        strategy, own, other = re.fullmatch(r"(\w+) \[([\d.]+) +([\d.]+)\]", line.strip()).groups()  # type: ignore[union-attr]
        row = shown["exercise_3"][strategy]
        assert abs(float(own) - float(row["own"].rstrip("%")) / 100) <= 0.0051, (strategy, own, row)
        assert abs(float(other) - float(row["other"].rstrip("%")) / 100) <= 0.0051, (strategy, other, row)


# The saturation figure's caption and alt text -----------------------------------------------------


def _figure_changed(curve: str, strategy: str, change):  # type: ignore[no-untyped-def]
    """scaling_study, with one curve of one strategy changed in the figure's experiment only."""
    from dataclasses import replace

    from qkv.analysis import scaling_study
    from qkv_site.pages.why_sqrt_dk import D_KS_FIGURE

    def changed(d_ks, *args, **kwargs):  # type: ignore[no-untyped-def]
        study = scaling_study(d_ks, *args, **kwargs)
        if tuple(d_ks) != D_KS_FIGURE:
            return study
        curves = getattr(study, curve)
        return replace(study, **{curve: {**curves, strategy: change(np.array(curves[strategy]))}})

    return changed


@pytest.mark.parametrize(("curve", "strategy", "change", "sentence"), [
    ("max_weight", "none", lambda c: np.minimum(c, 0.6), "largest weight tends to 1"),
    ("jacobian_norm", "none", lambda c: np.maximum(c, 0.3), "Jacobian collapses towards 0"),
    ("max_weight", "d_k", lambda c: c * 2, "dividing by d_k makes the output uniform"),
    ("max_weight", "sqrt_d_k", lambda c: c * np.linspace(1, 2, len(c)), "only with √d_k do the curves hardly change"),
])
def test_the_saturation_figure_s_description_is_checked(own_values: dict[str, Any], project: Project, monkeypatch: pytest.MonkeyPatch,
                                                         curve: str, strategy: str, change, sentence: str) -> None:  # type: ignore[no-untyped-def]
    from qkv_site.pages import why_sqrt_dk

    assert own_values  # the page's own curves hold
    why_sqrt_dk.values.cache_clear()
    try:
        monkeypatch.setattr(why_sqrt_dk, "scaling_study", _figure_changed(curve, strategy, change))
        with pytest.raises(ClaimError, match=re.escape(sentence)):
            why_sqrt_dk.values(project)
    finally:
        monkeypatch.undo()
        why_sqrt_dk.values.cache_clear()


# One draw quoted, and the gradient note's numbers -------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_sqrt_dk_page_quotes_one_draw_and_describes_its_experiments(site: Path, lang: str) -> None:
    page = built_article(site, "why-sqrt-dk.md", lang)
    text = page.get_text(" ")
    table_draw = dot_product_variance([1, 8, 64, 512], seed=0)
    own_draw = dot_product_variance([64], seed=0)
    quoted, other = number(table_draw.variance[2]), number(own_draw.variance[0])
    assert quoted != other
    exercise = page.select_one("#exercise-1").find_next("details").get_text(" ")
    assert quoted in exercise and other not in exercise, f"{lang}: exercise 1 should quote the table's draw ({quoted})"
    assert quoted in page.select_one("table").get_text(" ")
    for old in ("16 个 Key 和 500 组随机 Query", "16 Key vectors and 500 random Query vectors", "上表的图像版", "The table above as a picture"):
        assert old not in text, f"{lang}: {old!r}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_gradient_note_states_the_figure_s_numbers(site: Path, lang: str) -> None:
    curves = scaling_study(D_KS)
    unscaled, scaled = curves.jacobian_norm["none"], curves.jacobian_norm["sqrt_d_k"]
    above = [i for i in range(len(D_KS)) if unscaled[i] > scaled[i]]
    assert above, "the figure shows the unscaled Jacobian norm above the scaled one at small d_k"
    widest = max(above, key=lambda i: unscaled[i] - scaled[i])
    note = built_article(site, "why-sqrt-dk.md", lang).select_one("#note-gradient-region").find_next(class_="admonition")
    assert number(unscaled[widest]) in note.get_text() and number(scaled[widest]) in note.get_text()
