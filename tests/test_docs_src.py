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


def test_intuition_programs_agree_with_the_values_the_prose_prints() -> None:
    from qkv_site.formatting import vector
    from qkv_site.pages.intuition import values

    lookups = values()["lookups"]
    exercise_1, printed = run(DOCS_SRC / "intuition" / "exercise_1.py")
    assert [row.query for row in lookups] == [vector(q) for q in exercise_1["queries"]]
    assert [row.weights for row in lookups] == [vector(w, 4) for w in exercise_1["weights"]]
    assert [row.output for row in lookups] == [vector(o) for o in exercise_1["output"]]
    assert "e-0" not in printed, "the weights print as decimals, as the table under them does"
    _, printed = run(DOCS_SRC / "intuition" / "exercise_2.py")
    checks = printed.split()
    assert len(checks) == 4 and set(checks) == {"True"}, f"exercise 2 checks what the prose says of the output: {printed}"


def test_summary_flow_programs_agree_with_the_values_the_prose_prints() -> None:
    from qkv_site.pages.summary_flow import values

    shown = values()
    exercise_1, printed = run(DOCS_SRC / "summary-flow" / "exercise_1.py")
    for name in ("q", "k", "v", "scores", "scaled", "weights", "output"):
        assert shown["shapes"][name] == r" \times ".join(map(str, exercise_1[name].shape)), name
    assert printed.count("\n") == 7  # the seven results of the five steps, one line each
    _, printed = run(DOCS_SRC / "summary-flow" / "exercise_2.py")
    lines = dict(line.split(" ", 1) for line in printed.splitlines())
    assert lines.keys() == shown["changed"].keys()
    assert all(lines[name] == repr(tokens) for name, tokens in shown["changed"].items()), printed


def test_self_vs_cross_programs_agree_with_the_values_the_prose_prints() -> None:
    from qkv import causal_mask
    from qkv_site.formatting import percent
    from qkv_site.pages.self_vs_cross import values

    shown = values()["exercise_2"]
    exercise_2, _ = run(DOCS_SRC / "self-vs-cross" / "exercise_2.py")
    tokens = exercise_2["encoder"].tokens
    love = tokens.index("love")
    for name, row in (("unmasked", exercise_2["encoder"].weights[love]), ("masked", exercise_2["masked"][love])):
        assert [(s.token, s.share) for s in shown[name]] == [(t, percent(w)) for t, w in zip(tokens, row, strict=True)]
    exercise_1, printed = run(DOCS_SRC / "self-vs-cross" / "exercise_1.py")
    rows, columns = exercise_1["x_decoder"].shape[0], exercise_1["x_encoder"].shape[0]
    assert exercise_1["weights"].shape == (rows, columns) and printed.split("\n")[1] == "True"
    _, printed = run(DOCS_SRC / "self-vs-cross" / "causal_mask.py")
    assert printed.strip() == str(causal_mask(4).astype(int))


def test_index_program_agrees_with_the_values_the_prose_prints() -> None:
    from qkv_site.pages.index import values

    shown = values()
    quick_start, printed = run(DOCS_SRC / "index" / "quick_start.py")
    assert quick_start["weights"].shape == (int(shown["tokens"]),) * 2  # one row and one column per token of the example
    assert quick_start["example"].x.shape[1] == int(shown["d_model"])
    assert printed.strip() == str(quick_start["weights"].round(2))


def rendered(page: str, lang: str) -> str:
    """docs/<lang>/<page> with its named values filled in, as the build renders it."""
    import yaml

    from qkv_site.build.page_values import render
    from qkv_site.translations import split_front_matter

    front, body = split_front_matter((DOCS / lang / page).read_text(encoding="utf-8"))
    return render(body, yaml.safe_load(front) if isinstance(front, str) else front, f"{lang}/{page}")


def test_glossary_rows_are_the_terms_the_tooltips_use() -> None:
    from qkv_site.glossary import TERMS

    for lang in LANGUAGES:
        rows = [line for line in rendered("glossary.md", lang).splitlines() if line.startswith("| **")]
        expected = [f"| **{t.text}** | {t.zh} | {t.en} | {t.zh_meaning} |" if lang == "zh" else
                    f"| **{t.text}** | {t.en} | {t.zh} | {t.en_meaning} |" for t in TERMS]
        assert rows == expected, lang


def test_corrections_rows_link_every_note_the_pages_carry() -> None:
    from qkv_site.corrections import editors_notes

    for lang in LANGUAGES:
        notes = editors_notes(lang, DOCS, ROOT / "mkdocs.yml")
        links = re.findall(r"^\| \[[^\]]+\]\(([\w.-]+\.md#note-[\w-]+)\) \| \[[^\]]+\]\([\w.-]+\.md\) \|$",
                           rendered("corrections.md", lang), re.MULTILINE)
        assert links == [f"{note.page}#{note.anchor}" for note in notes], lang
        for note in notes:  # each link's anchor sits on its page
            assert f'<a id="{note.anchor}"></a>' in (DOCS / lang / note.page).read_text(encoding="utf-8")


def test_playground_limits_are_the_ones_its_script_reads() -> None:
    import json

    from qkv.examples import it_animal_sentence
    from qkv_site.pages.playground import SCRIPT, values

    shown = values()
    data = json.loads(re.search(r">(.*)</script>", shown["presets_script"]).group(1).replace("<\\/", "</"))
    assert (shown["max_tokens"], shown["max_dim"]) == (str(data["limits"]["max_tokens"]), str(data["limits"]["max_dim"]))
    assert shown["animal_tokens"] == str(len(data["presets"]["it-animal"]["tokens"])) == str(len(it_animal_sentence().tokens))
    assert "parseCell(cell, LIMIT)" in SCRIPT.read_text(encoding="utf-8")  # the limit the note quotes is the one applied
    for lang in LANGUAGES:
        assert rendered("playground.md", lang).count(shown["presets_script"]) == 1
