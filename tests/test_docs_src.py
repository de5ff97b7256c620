"""The named values the pages' prose prints agree with what the programs the pages show compute
(docs_src/<page>/<name>.py), and with what the site's other tables are made from. pytest-codeblocks runs every
program as each page shows it and compares what it prints with the output under it (tests/page_codeblocks.py);
the checks here read the variables a program leaves as well as what it prints."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pytest_codeblocks.main import stdout_io

from conftest import DOCS, LANGUAGES, ROOT
from qkv_site.project import Project
from site_pages import rendered

DOCS_SRC = ROOT / "docs_src"


def run(program: Path) -> tuple[dict[str, Any], str]:
    """A program's variables and what it printed, run as pytest-codeblocks runs a block: its code executed in
    fresh globals, its output caught by pytest-codeblocks' own `stdout_io`."""
    variables: dict[str, Any] = {"__MODULE__": "__main__"}
    with stdout_io() as printed:
        exec(compile(program.read_text(encoding="utf-8"), str(program), "exec"), variables)
    return variables, printed.getvalue()


def test_complexity_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv_site.pages.complexity import values

    shown = values(project)
    exercise_2, _ = run(DOCS_SRC / "complexity" / "exercise_2.py")
    assert f"{exercise_2['n']:,}" == shown["crossover"]  # counted term by term vs qkv.complexity.crossover_length
    assert f"{exercise_2['bound']:.1f}" == shown["bound"]
    _, printed = run(DOCS_SRC / "complexity" / "exercise_1.py")
    assert [shown["long_fp16"], shown["long_fp32"], shown["long_layer"], shown["long_model"]] == re.findall(r"= (\S+ \w?i?B)$", printed, re.MULTILINE)
    _, printed = run(DOCS_SRC / "complexity" / "exercise_3.py")
    assert f"× {shown['doubled_ratio']}" in printed and shown["doubled_total"] in printed


def test_why_sqrt_dk_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    import math

    from qkv_site.figures.softmax_saturation import D_KS
    from qkv_site.figures.softmax_saturation import _study as figure_study
    from qkv_site.content.formatting import number
    from qkv_site.pages.why_sqrt_dk import D_KS_FIGURE, values

    shown = values(project)
    page = DOCS_SRC / "why-sqrt-dk"
    variance, _ = run(page / "variance.py")  # the table's draw, as the reader's program makes it
    study = variance["study"]
    assert [(r.d_k, r.theory, r.measured, r.scaled) for r in shown["variance_rows"]] == [
        (str(d), str(d), number(v), number(s)) for d, v, s in zip(study.d_k, study.variance, study.scaled_variance, strict=True)
    ]
    strategies, printed = run(page / "strategies.py")
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
    exercise_1, _ = run(page / "exercise_1.py")
    i, draw, ex1 = exercise_1["i"], exercise_1["study"], shown["exercise_1"]
    assert (ex1["variance"], ex1["scaled"]) == (number(draw.variance[i]), number(draw.scaled_variance[i]))
    assert ex1["variance"] == shown["variance_rows"][i].measured  # the same draw as the table
    assert (ex1["std"], ex1["n_samples"]) == (number(exercise_1["std"]), f"{draw.n_samples:,}")
    assert int(ex1["unscaled_ratio"].replace(",", "")) == round(math.exp(exercise_1["std"]))
    exercise_2, _ = run(page / "exercise_2.py")
    ex2 = shown["exercise_2"]
    assert (ex2["measured"], ex2["divisor"]) == (number(exercise_2["dots"].var(ddof=1)), number(exercise_2["divisor"]))
    assert ex2["scaled"] == number((exercise_2["dots"] / exercise_2["divisor"]).var(ddof=1))
    _, printed = run(page / "exercise_3.py")
    for line in printed.splitlines():
        strategy, own, other = re.fullmatch(r"(\w+) \[([\d.]+) +([\d.]+)\]", line.strip()).groups()  # type: ignore[union-attr]
        row = shown["exercise_3"][strategy]
        assert abs(float(own) - float(row["own"].rstrip("%")) / 100) <= 0.0051, (strategy, own, row)
        assert abs(float(other) - float(row["other"].rstrip("%")) / 100) <= 0.0051, (strategy, other, row)


def test_why_three_matrices_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv_site.content.formatting import bmatrix, percent, vector
    from qkv_site.pages.why_three_matrices import values

    shown = values(project)
    page = DOCS_SRC / "why-three-matrices"
    how, _ = run(page / "how_computed.py")
    cat, sit = how["cat"], how["sit"]
    assert [t["token"] for t in shown["tokens"]] == list(cat.tokens)
    assert shown["unprojected"] == [percent(w) for w in how["unprojected"][sit]]
    assert shown["projected"] == [percent(w) for w in cat.weights[sit]]
    exercise_1, _ = run(page / "exercise_1.py")
    x, counter, ex1 = exercise_1["x"], exercise_1["weights"], shown["exercise_1"]
    assert (ex1["xxt"], ex1["squared_norms"]) == (bmatrix(x @ x.T), vector((x**2).sum(axis=1)))
    assert ex1["weights"] == bmatrix(exercise_1["unprojected"])
    assert (ex1["counter_x"], ex1["counter_weights"]) == (bmatrix(exercise_1["short_long"]), bmatrix(counter))
    assert (ex1["counter_own"], ex1["counter_other"]) == (percent(counter[0, 0]), percent(counter[0, 1]))
    exercise_2, printed = run(page / "exercise_2.py")
    ex2 = shown["exercise_2"]
    holds, rank_line, sizes = printed.splitlines()[-3:]
    (rank, d_k), (separate, one, times) = rank_line.split(), sizes.split()
    assert ex2["merged"] == bmatrix(exercise_2["merged"]) and holds == "True"  # the page says the identity holds
    assert (ex2["rank"], ex2["d_k"]) == (rank, d_k)
    assert (ex2["separate"], ex2["one"], ex2["times"]) == (f"{int(separate):,}", f"{int(one):,}", times)
    exercise_3, printed = run(page / "exercise_3.py")
    ex3 = shown["exercise_3"]
    assert (ex3["scores"], ex3["weights"]) == (bmatrix(exercise_3["tied"].scores), bmatrix(exercise_3["tied"].weights))
    assert float(ex3["scores_asymmetry"]) == float(printed.splitlines()[-2])
    assert str(ex3["own"]) == printed.splitlines()[-1]  # the flag that picks the page's sentence


def test_intuition_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv_site.content.formatting import vector
    from qkv_site.pages.intuition import values

    lookups = values(project)["lookups"]
    exercise_1, printed = run(DOCS_SRC / "intuition" / "exercise_1.py")
    assert [row.query for row in lookups] == [vector(q) for q in exercise_1["queries"]]
    assert [row.weights for row in lookups] == [vector(w, 4) for w in exercise_1["weights"]]
    assert [row.output for row in lookups] == [vector(o) for o in exercise_1["output"]]
    assert "e-0" not in printed, "the weights print as decimals, as the table under them does"
    _, printed = run(DOCS_SRC / "intuition" / "exercise_2.py")
    checks = printed.split()
    assert len(checks) == 4 and set(checks) == {"True"}, f"exercise 2 checks what the prose says of the output: {printed}"


def test_summary_flow_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv_site.pages.summary_flow import values

    shown = values(project)
    exercise_1, printed = run(DOCS_SRC / "summary-flow" / "exercise_1.py")
    for name in ("q", "k", "v", "scores", "scaled", "weights", "output"):
        assert shown["shapes"][name] == r" \times ".join(map(str, exercise_1[name].shape)), name
    assert printed.count("\n") == 7  # the seven results of the five steps, one line each
    _, printed = run(DOCS_SRC / "summary-flow" / "exercise_2.py")
    lines = dict(line.split(" ", 1) for line in printed.splitlines())
    assert lines.keys() == shown["changed"].keys()
    assert all(lines[name] == repr(tokens) for name, tokens in shown["changed"].items()), printed


def test_self_vs_cross_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv import causal_mask
    from qkv_site.content.formatting import percent
    from qkv_site.pages.self_vs_cross import values

    shown = values(project)["exercise_2"]
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


def test_index_program_agrees_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv_site.pages.index import values

    shown = values(project)
    quick_start, printed = run(DOCS_SRC / "index" / "quick_start.py")
    assert quick_start["weights"].shape == (int(shown["tokens"]),) * 2  # one row and one column per token of the example
    assert quick_start["example"].x.shape[1] == int(shown["d_model"])
    assert printed.strip() == str(quick_start["weights"].round(2))


def test_glossary_rows_are_the_terms_the_tooltips_use(project: Project) -> None:
    from qkv_site.content.glossary import TERMS

    for lang in LANGUAGES:
        rows = [line for line in rendered("glossary.md", lang, project).splitlines() if line.startswith("| [**")]
        expected = [f"| [**{t.text}**]({t.section}) | {t.zh} | {t.en} | {t.zh_meaning} |" if lang == "zh" else
                    f"| [**{t.text}**]({t.section}) | {t.en} | {t.zh} | {t.en_meaning} |" for t in TERMS]
        assert rows == expected, lang


def test_corrections_rows_link_every_note_the_pages_carry(project: Project) -> None:
    from qkv_site.content.corrections import editors_notes

    for lang in LANGUAGES:
        notes = editors_notes(lang, DOCS, ROOT / "mkdocs.yml")
        links = re.findall(r"^\| \[[^\]]+\]\(([\w.-]+\.md#note-[\w-]+)\) \| \[[^\]]+\]\([\w.-]+\.md\) \|$",
                           rendered("corrections.md", lang, project), re.MULTILINE)
        assert links == [f"{note.page}#{note.anchor}" for note in notes], lang
        for note in notes:  # each link's anchor sits on its page
            assert f'<a id="{note.anchor}"></a>' in (DOCS / lang / note.page).read_text(encoding="utf-8")


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


def test_worked_example_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    import numpy as np

    from qkv import softmax
    from qkv_site.content.formatting import bmatrix, percent, vector
    from qkv_site.pages.worked_example import values

    shown = values(project)
    folder = DOCS_SRC / "worked-example"
    variables, printed = run(folder / "input.py")
    assert variables["example"].tokens == shown["tokens"] and str(variables["example"].x) in printed
    assert bmatrix(variables["example"].x) == shown["x"] and vector(variables["example"].x[0]) == shown["x_rows"][0]
    step_1, _ = run(folder / "step_1.py")  # qkv.project vs the WorkedExample's properties
    assert [bmatrix(step_1[name]) for name in "qkv"] == [shown["q"], shown["k"], shown["v"]]
    step_2, printed = run(folder / "step_2.py")
    assert bmatrix(step_2["scores"]) == shown["scores"] and str(step_2["scores"]) in printed
    step_3, _ = run(folder / "step_3.py")
    assert bmatrix(step_3["scaled"]) == shown["scaled_scores"]
    step_4, printed = run(folder / "step_4.py")
    assert bmatrix(step_4["weights"]) == shown["weights"] and printed.splitlines()[-1] == "[1. 1.]"
    assert [step.weight for step in shown["walk"].steps] == [f"{w:.2f}" for w in step_4["weights"][0]]  # by hand vs exact
    percents = [[percent(w) for w in row] for row in step_4["weights"]]
    assert [[cell.percent for cell in row.cells] for row in shown["shares"]] == percents
    for name in ("step_5.py", "try_it.py"):  # try_it multiplies X by the weights itself
        program, printed = run(folder / name)
        assert bmatrix(program["output"]) == shown["output"] and str(program["output"].round(2)) in printed, name
        assert [row.output for row in shown["shares"]] == [vector(row) for row in program["output"]], name

    exercise_1, printed = run(folder / "exercise_1.py")
    wider, example = exercise_1["wider"], exercise_1["example"]
    assert printed.startswith(f"d_k = {shown['d_k']} -> {shown['exercise_1']['d_k']}\n")
    assert [bmatrix(wider.scores), bmatrix(wider.scaled_scores), bmatrix(wider.weights)] == [
        shown["exercise_1"][name] for name in ("scores", "scaled", "weights")]
    assert [percent(example.weights[0, 0]), percent(wider.weights[0, 0])] == [shown["exercise_1"][n] for n in ("before", "after")]
    exercise_2, printed = run(folder / "exercise_2.py")
    assert bmatrix(exercise_2["masked_weights"]) == shown["exercise_2"]["weights"]
    assert bmatrix(exercise_2["masked_output"]) == shown["exercise_2"]["output"]
    assert printed.splitlines()[-1] == "True"  # the page says the row of "love" is unchanged
    _, printed = run(folder / "exercise_3.py")
    assert printed.splitlines() == ["True", str(softmax(np.array([1.0, 0.0])).round(2))]  # the page: as softmax([1, 0])
    exercise_4, printed = run(folder / "exercise_4.py")
    changed = exercise_4["changed"]  # the program types the edited X; the values edit one cell of X
    assert vector(changed.x[0]) == shown["exercise_4"]["x_row"]
    matrices = [bmatrix(changed.q), bmatrix(changed.k), bmatrix(changed.weights)]
    assert matrices == [shown["exercise_4"][name] for name in ("q", "k", "weights")]
    rows = shown["exercise_4"]["attention_to_first"]
    assert [row.after for row in rows] == [percent(w) for w in changed.weights[:, 0]]
    assert [row.before for row in rows] == [percent(w) for w in exercise_4["example"].weights[:, 0]]


def test_learned_attention_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv_site.pages.learned_attention import accuracy, span, values

    shown = values(project)
    _, printed = run(DOCS_SRC / "learned-attention" / "how_computed.py")
    lines = printed.splitlines()
    low, high = (float(x) for x in re.findall(r"seeds: (\S+) to (\S+)$", lines[0])[0])
    assert span([low, high]) == shown["runs"]["baseline"]["range"]
    assert lines[1].split() == ["layer", "1", "cross", shown["looks"]["layer1_cross"], "animal:", shown["looks"]["layer2_animal"]]
    assert lines[2].split() == ["layer", "2", "tired", shown["looks"]["layer2_adjective"], "animal:",
                                shown["looks"]["layer2_animal"]]

    for program in ("scaling.py", "variants.py"):
        _, printed = run(DOCS_SRC / "learned-attention" / program)
        for line in printed.splitlines():
            name, finals = (part.strip() for part in line.split("|")[:2])
            low, high = (float(x) for x in re.findall(r": (\S+) to (\S+)$", finals)[0])
            assert span([low, high]) == shown["runs"][name]["range"], name
            if "median:" in line:
                assert accuracy(float(line.rsplit(" ", 1)[1])) == shown["runs"][name]["median"], name

    _, printed = run(DOCS_SRC / "learned-attention" / "exercise_1.py")
    resolved = re.findall(r"-> (\w+)$", printed, re.MULTILINE)
    tops = re.findall(r"^ layer (\d) (\S+) (\S+)$", printed, re.MULTILINE)
    assert resolved == [row["resolved"] for row in shown["exercise_1"]]
    assert [(word, w) for _, word, w in tops] == [
        pair for row in shown["exercise_1"] for pair in ((row["top_1"], row["top_1_w"]), (row["top_2"], row["top_2_w"]))]

    _, printed = run(DOCS_SRC / "learned-attention" / "exercise_2.py")
    truth = ["animal", "street", "animal", "street"]
    lines = printed.splitlines()
    answers = [line.split(" | ")[1] for line in lines[:4]]
    assert str(sum(a == t for a, t in zip(answers, truth, strict=True))) == shown["exercise_2"]["two_right"]
    one_layer = [float(x) for x in lines[4].split("[")[1].strip("]").split(",")]
    assert span(one_layer) == shown["one_layer"]["range"]


def test_motivation_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv_site.pages.motivation import values

    shown = values(project)
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


def test_beyond_quadratic_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv._kernel import causal_work_share
    from qkv.tiled import DEFAULT_BLOCK_SIZE
    from qkv_site.pages.beyond_quadratic import tiled_causal_share, values

    shown = values(project)
    page = DOCS_SRC / "beyond-quadratic"
    _, printed = run(page / "online_softmax.py")  # the table's last running max and sum, rounded as the program prints them
    last = [row for row in shown["online"]["rows"] if row.block == 2]
    assert printed.splitlines()[1] == f"[{' '.join(row.running_max for row in last)}] [{' '.join(row.running_sum for row in last)}]"
    assert "[[0.64 0.36]" in printed and "0.64 & 0.36" in shown["online"]["weights"]
    _, printed = run(page / "tiled.py")
    assert printed.split() == ["(1000,", "1000)", "(1000,", "64)", "True", "True"]
    _, printed = run(page / "causal_work.py")  # counted block by block, against the kernel's own count and the page's shares
    lines = [line.split() for line in printed.splitlines()]
    qkv = {int(n): float(share) for who, n, _, share in lines if who == "qkv"}
    tiled = {int(n): float(share) for who, n, size, share in lines if who == "tiled" and int(size) == DEFAULT_BLOCK_SIZE}
    assert qkv == {n: causal_work_share(n, n) for n in qkv}
    assert tiled == {n: tiled_causal_share(n, DEFAULT_BLOCK_SIZE) for n in tiled} and len(tiled) == 2
    causal = shown["causal"]
    assert [causal["share_1024"], causal["share_4096"]] == [f"{qkv[n] * 100:g}%" for n in (1024, 4096)]
    assert causal["tiled_skip_shares"][-2:] == [f"{tiled[n] * 100:g}%" for n in (2048, 4096)]
    assert [causal["rows_1024"], causal["rows_4096"]] == [rows for who, n, rows, _ in lines if who == "qkv"]
    _, printed = run(page / "kv_cache.py")
    sizes = [int(line.split()[-1]) for line in printed.splitlines()]
    from qkv.complexity import format_bytes

    assert [format_bytes(size) for size in sizes] == [row.total for row in shown["kv"]["rows"]]
    _, printed = run(page / "exercise_1.py")
    gqa = next(line for line in printed.splitlines() if line.startswith("GQA"))
    assert f" {shown['kv']['exercise']['gqa']} × 1" in gqa
    _, printed = run(page / "exercise_2.py")
    assert printed.split() == ["1", "True", "7", "True", "64", "True"]
