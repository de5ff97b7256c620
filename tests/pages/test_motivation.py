"""The page “为什么需要 Self-Attention？ / Why do we need self-attention?”: the values its prose prints are those its
programs compute."""

from __future__ import annotations

from page_sources import DOCS_SRC, run_program

from qkv_site.project import Project


def test_motivation_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv_site.pages.motivation import values

    shown = values(project)
    _, printed = run_program(DOCS_SRC / "motivation" / "exercise_1.py")
    (animal, street, ratio), (gap, exp_gap) = (line.split() for line in printed.splitlines())
    assert f"{float(animal):.0%}" == shown["exercise_1"]["animal"] and f"{float(street):.0%}" == shown["exercise_1"]["street"]
    assert f"{float(ratio):.2f}" == shown["exercise_1"]["ratio"] == f"{float(exp_gap):.2f}"
    assert gap == shown["exercise_1"]["gap"]
    variables, printed = run_program(DOCS_SRC / "motivation" / "exercise_2.py")
    row = dict(zip(variables["tokens"], variables["weights"][variables["tokens"].index("it")], strict=True))
    assert f"{row['street']:.0%}" == shown["exercise_2"]["street"]
    assert f"{min(w for t, w in row.items() if t != 'street'):.0%}" == shown["exercise_2"]["others"]
    assert f"{float(printed.split()[-1]):.0%}" == shown["exercise_2"]["street_before"]
