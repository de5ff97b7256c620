"""The programs the pages show (docs_src/<page>/<name>.py): each runs, each is shown by both languages,
and what it computes agrees with the named values the page's prose prints (qkv_site.pages)."""

from __future__ import annotations

import contextlib
import io
import re
import runpy
from pathlib import Path
from typing import Any

import pytest

from conftest import DOCS, LANGUAGES, ROOT

DOCS_SRC = ROOT / "docs_src"
PROGRAMS = sorted(DOCS_SRC.rglob("*.py"))
INCLUDE = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$', re.MULTILINE)


def run(program: Path) -> tuple[dict[str, Any], str]:
    """Run a program as the page does; return its variables and what it printed."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        variables = runpy.run_path(str(program), run_name="__main__")
    return variables, printed.getvalue()


def included(lang: str) -> set[str]:
    return {name for page in (DOCS / lang).glob("*.md") for name in INCLUDE.findall(page.read_text(encoding="utf-8"))}


def test_there_are_programs() -> None:
    assert len(PROGRAMS) >= 4


@pytest.mark.parametrize("program", PROGRAMS, ids=[str(p.relative_to(DOCS_SRC)) for p in PROGRAMS])
def test_each_program_runs_and_prints(program: Path) -> None:
    _, printed = run(program)
    assert printed.strip(), f"{program.relative_to(ROOT)} prints nothing: the page would show an empty result"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_both_languages_show_every_program_and_only_existing_ones(lang: str) -> None:
    names = {str(p.relative_to(DOCS_SRC)) for p in PROGRAMS}
    assert included(lang) == names, f"docs/{lang}: shown {sorted(included(lang))}, in docs_src {sorted(names)}"


def test_complexity_programs_agree_with_the_values_the_prose_prints() -> None:
    from qkv_site.pages.complexity import values

    shown = values()
    exercise_2, _ = run(DOCS_SRC / "complexity" / "exercise_2.py")
    assert f"{exercise_2['n']:,}" == shown["crossover"]  # counted term by term vs qkv.complexity.crossover_length
    assert f"{exercise_2['bound']:.1f}" == shown["bound"]
    _, printed = run(DOCS_SRC / "complexity" / "exercise_1.py")
    assert [shown["long_fp16"], shown["long_fp32"], shown["long_model"]] == re.findall(r"= (\S+ \w?i?B)$", printed, re.MULTILINE)
    _, printed = run(DOCS_SRC / "complexity" / "exercise_3.py")
    assert f"× {shown['doubled_ratio']}" in printed and shown["doubled_total"] in printed


def test_learned_attention_programs_agree_with_the_values_the_prose_prints() -> None:
    from qkv_site.pages.learned_attention import values

    shown = values()
    _, printed = run(DOCS_SRC / "learned-attention" / "how_computed.py")
    lines = printed.splitlines()
    assert f"{float(lines[0]):.1%}" == shown["baseline"]["accuracy"]
    layer_1, layer_2 = (line.split() for line in lines[1:3])
    assert layer_1[:3] == ["1", "cross", shown["looks"]["layer1_cross"]]
    assert layer_2[1] == "tired" and f"{float(layer_2[2]):.2f}" == shown["looks"]["layer2_adjective"]
    assert f"{float(layer_2[3]):.2f}" == shown["looks"]["layer2_animal"]
    referent = [float(x) for x in lines[3].strip("[]").split()]
    assert [f"{x:.1%}" for x in referent] == shown["looks"]["referent"]

    _, printed = run(DOCS_SRC / "learned-attention" / "scaling.py")
    runs = dict(zip(("one", "sqrt", "d_k"), re.findall(r"held-out accuracy: \[([^\]]+)\]", printed), strict=True))
    starts = re.findall(r"entropy at step 0: (\S+)  Jacobian at step 0: (\S+)", printed)
    for (key, accuracies), (entropy, jacobian) in zip(runs.items(), starts, strict=True):
        curve = [float(x) for x in accuracies.split()]
        assert f"{curve[-1]:.1%}" == shown["scaling"][key]["accuracy"]
        assert [f"{x:.1%}" for x in curve] == [row[key] for row in shown["scaling"]["rows"]]
        assert float(entropy) == float(shown["scaling"][key]["entropy_start"])
        assert float(jacobian) == float(shown["scaling"][key]["jacobian_start"])

    _, printed = run(DOCS_SRC / "learned-attention" / "variants.py")
    tied, none = (float(line.rsplit(" ", 1)[1]) for line in printed.splitlines())
    assert f"{tied:.1%}" == shown["tied"]["accuracy"] and f"{none:.1%}" == shown["no_projections"]["accuracy"]

    _, printed = run(DOCS_SRC / "learned-attention" / "exercise_1.py")
    resolved = re.findall(r"-> (\w+)$", printed, re.MULTILINE)
    tops = re.findall(r"^ layer (\d) (\S+) (\S+)$", printed, re.MULTILINE)
    assert resolved == [row["resolved"] for row in shown["exercise_1"]]
    assert [(word, f"{float(w):.2f}") for _, word, w in tops] == [
        pair for row in shown["exercise_1"] for pair in ((row["top_1"], row["top_1_w"]), (row["top_2"], row["top_2_w"]))]

    _, printed = run(DOCS_SRC / "learned-attention" / "exercise_2.py")
    truth = ["animal", "street", "animal", "street"]
    answers = [line.split(" | ")[1:] for line in printed.splitlines()]
    assert str(sum(one == t for (one, _), t in zip(answers, truth, strict=True))) == shown["exercise_2"]["one_right"]
    assert str(sum(two == t for (_, two), t in zip(answers, truth, strict=True))) == shown["exercise_2"]["two_right"]


def test_motivation_programs_agree_with_the_values_the_prose_prints() -> None:
    from qkv_site.pages.motivation import values

    shown = values()
    _, printed = run(DOCS_SRC / "motivation" / "exercise_1.py")
    (animal, street, ratio), (gap, exp_gap) = (line.split() for line in printed.splitlines())
    assert f"{float(animal):.0%}" == shown["exercise_1"]["animal"] and f"{float(street):.0%}" == shown["exercise_1"]["street"]
    assert f"{float(ratio):.2f}" == shown["exercise_1"]["ratio"] == f"{float(exp_gap):.2f}"
    assert gap == shown["exercise_1"]["gap"]
    variables, printed = run(DOCS_SRC / "motivation" / "exercise_2.py")
    row = dict(zip(variables["tokens"], variables["weights"][variables["tokens"].index("it")], strict=True))
    assert f"{row['street']:.0%}" == shown["exercise_2"]["street"]
    assert f"{min(w for t, w in row.items() if t != 'street'):.0%}" == shown["exercise_2"]["others"]
    assert f"{float(printed.split()[-1]):.0%}" == shown["exercise_2"]["street_before"]
