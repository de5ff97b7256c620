"""The page “缩放因子为什么是 √dₖ？”: its values stop the build when the data no longer support a sentence."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from qkv.analysis import DotProductVariance, ScalingStudy, dot_product_variance, scaling_study
from qkv_site.content.claims import ClaimError
from qkv_site.pages import why_sqrt_dk
from qkv_site.project import Project


@pytest.fixture(autouse=True)
def fresh_values() -> Iterator[None]:
    why_sqrt_dk.values.cache_clear()  # values() is cached: compute again from the changed data
    yield
    why_sqrt_dk.values.cache_clear()


def test_the_values_hold_on_the_page_s_own_data(project: Project) -> None:
    shown = why_sqrt_dk.values(project)
    assert shown["gradient"]["above"] and shown["variance_rows"]


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
