"""The page “Attention 的复杂度与瓶颈 / The complexity and bottleneck of attention”: the numbers in its prose
are its named values, checked against the programs it shows, and each sentence about them stops the build when they
no longer support it."""

from __future__ import annotations

import re

import pytest
from page_sources import DOCS_SRC, run_program, source
from repository import LANGUAGES

from qkv_site.project import Project
from qkv_site.values.claims import ClaimError

# The programs the page shows ----------------------------------------------------------------------


def test_complexity_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv_site.pages.complexity import values

    shown = values(project)
    exercise_2, _ = run_program(DOCS_SRC / "complexity" / "exercise_2.py")
    assert f"{exercise_2['n']:,}" == shown["crossover"]  # counted term by term vs qkv.complexity.crossover_length
    assert f"{exercise_2['bound']:.1f}" == shown["bound"]
    _, printed = run_program(DOCS_SRC / "complexity" / "exercise_1.py")
    assert [shown["long_fp16"], shown["long_fp32"], shown["long_layer"], shown["long_model"]] == re.findall(r"= (\S+ \w?i?B)$", printed, re.MULTILINE)
    _, printed = run_program(DOCS_SRC / "complexity" / "exercise_3.py")
    assert f"× {shown['doubled_ratio']}" in printed and shown["doubled_total"] in printed


# Numbers in the prose are the page's named values -------------------------------------------------


TYPED = {
    "zh": ("$n = 4096$、$d = 512$", "$n = 4{,}096$、$d = 512$", "$d = 512$ 时", "从 4,096 翻倍到 8,192",
           "标出 512、4096", "$128{,}000 \\times 128{,}000$", "$n = 32{,}768$", "32 层、每层 32 个头"),
    "en": ("$n = 4096$ and $d = 512$", "$n = 4{,}096$ and $d = 512$", "For $d = 512$", "With $d = 512$",
           "from 4,096 to 8,192", "points 512, 4096", "$128{,}000 \\times 128{,}000$", "$n = 32{,}768$",
           "32 layers of 32 heads"),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_complexity_prose_names_its_numbers_instead_of_typing_them(lang: str) -> None:
    text = source(lang, "complexity.md")
    for typed in TYPED[lang]:
        assert typed not in text, f"{lang}/complexity.md types {typed!r}: it would not follow the values"
    for name in ("{{ n_plain }}", "{{ doubled_n }}", "{{ memory_last_tex }}", "memory_points"):
        assert name in text, f"{lang}/complexity.md should use {name}"


def test_the_complexity_values_are_the_numbers_the_prose_used_to_type(project: Project) -> None:
    from qkv_site.pages.complexity import values

    shown = values(project)
    assert (shown["n_plain"], shown["n_tex"], shown["d"], shown["doubled_n"]) == ("4096", "4{,}096", "512", "8,192")
    assert shown["memory_points"] == ["512", "4096", "32768", "128000"] and shown["memory_last_tex"] == "128{,}000"
    assert (shown["long_tex"], shown["layers"], shown["heads"]) == ("32{,}768", "32", "32")


def test_four_rows_and_a_little_less_than_fourfold_are_checked(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from qkv_site.pages import complexity

    original = complexity.memory_table
    monkeypatch.setattr(complexity, "memory_table", lambda dtype: original(dtype=dtype)[:3])
    complexity.values.cache_clear()
    with pytest.raises(ClaimError, match="four rows"):
        complexity.values(project)
    monkeypatch.undo()
    monkeypatch.setattr(complexity, "total_multiplications", lambda n, d: n * n)  # exactly fourfold
    complexity.values.cache_clear()
    with pytest.raises(ClaimError, match="a little less than fourfold"):
        complexity.values(project)
    monkeypatch.undo()
    complexity.values.cache_clear()
    ratio = complexity.total_multiplications(8192, 512) / complexity.total_multiplications(4096, 512)
    assert complexity.values(project)["doubled_ratio"] == f"{ratio:.2f}" and 3 < ratio < 4


def test_the_32k_the_exercise_names_is_checked(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from qkv_site.pages import complexity

    monkeypatch.setattr(complexity, "LONG_CONTEXT", 32_000)
    complexity.values.cache_clear()
    try:
        with pytest.raises(ClaimError, match="32K"):
            complexity.values(project)
    finally:
        monkeypatch.undo()
        complexity.values.cache_clear()
