"""The beyond page (qkv_site.pages.beyond_quadratic): its causal, layout and timing sentences follow the measured
results, altered results pick the other true sentence or stop the build naming it, and a false one stops the
strict build (qkv_site.values.claims; the self-vs-cross figure's: test_self_vs_cross.py); its KV-cache caption
follows the model shapes, and its programs compute the values its prose prints."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from build_support import build_site
from page_sources import DOCS_SRC, run_program
from site_pages import figure_function

from qkv.blocks import causal_work_share
from qkv.tiled import DEFAULT_BLOCK_SIZE
from qkv_site.figures.attention_time import note
from qkv_site.pages import beyond_quadratic as beyond
from qkv_site.project import Project
from qkv_site.results import load
from qkv_site.values.claims import ClaimError


@pytest.fixture
def speed(project: Project) -> dict[str, Any]:
    return copy.deepcopy(load(project, "attention_speed"))


def _set_ratio(speed: dict[str, Any], causal: str, full: str, ratio: float, ns: list[int] | None = None) -> None:
    """Make the causal implementation take `ratio` times the full one's time (medians and samples)."""
    rows = {(row["n"], row["implementation"]): row for row in speed["results"]}
    for n in speed["ns"]:
        if ns is None or n in ns:
            rows[(n, causal)]["median_s"] = rows[(n, full)]["median_s"] * ratio
            rows[(n, causal)]["samples_s"] = [s * ratio for s in rows[(n, full)]["samples_s"]]


def test_the_shares_are_the_kernels_and_the_tiles_skipped(project: Project) -> None:
    assert beyond.tiled_causal_share(4096, 1024) == 10 / 16  # 4 tiles a side: 4 + 3 + 2 + 1 of 16
    assert beyond.tiled_causal_share(1000, 128) == sum(min(q0 + 128, 1000) * (min(q0 + 128, 1000) - q0)
                                                       for q0 in range(0, 1000, 128)) / 1000**2
    assert beyond.tiled_causal_share(512, 1024) == 1.0  # one tile: nothing to skip
    shown = beyond.causal_values(load(project, "attention_speed"))
    assert shown["share_1024"] == f"{causal_work_share(1024, 1024) * 100:g}%" == "56.25%"
    assert shown["tiled_block"] == f"{DEFAULT_BLOCK_SIZE:,}"


def test_causal_faster_everywhere_picks_the_faster_sentences(speed: dict[str, Any]) -> None:
    _set_ratio(speed, "qkv_causal", "qkv", 0.55)
    _set_ratio(speed, "tiled_causal", "tiled", 0.65)
    shown = beyond.causal_values(speed)
    assert shown["qkv_faster_from"] and shown["qkv_not_faster"] == [] and shown["qkv_near_share"]
    assert shown["tiled_faster_skipping"] and shown["tiled_near_share"] and shown["qkv_last_ratio"] == "0.55"


def test_a_causal_call_that_saves_nothing_is_named_and_not_called_close_to_its_share(speed: dict[str, Any]) -> None:
    _set_ratio(speed, "qkv_causal", "qkv", 0.55)
    _set_ratio(speed, "qkv_causal", "qkv", 1.1, [2048])  # no faster at n = 2,048
    _set_ratio(speed, "tiled_causal", "tiled", 1.0)  # tiled saves nothing anywhere
    shown = beyond.causal_values(speed)
    assert not shown["qkv_faster_from"] and shown["qkv_not_faster"] == ["2,048"]
    assert not shown["tiled_faster_skipping"] and shown["tiled_not_faster"] == shown["tiled_skipping"]
    assert not shown["tiled_near_share"]  # 1.00 against 62.5%


def test_a_tiled_default_that_never_skips_stops_the_page(speed: dict[str, Any]) -> None:
    speed["implementations"]["tiled"] = "qkv.tiled_attention(block_size=8192), the default"  # larger than every n
    with pytest.raises(ClaimError, match=r"beyond-quadratic.md: .*skips tiles only when there are several"):
        beyond.causal_values(speed)


def _layout_ratios(speed: dict[str, Any], ratio: float, fused: bool) -> None:
    for row in speed["layouts"]["results"]:
        if (row["torch_sdp_choice"] == 1) == fused and row["dtype"] == "float32":
            row["torch_median_s"] = row["qkv_output_median_s"] / ratio
            row["qkv_output_over_torch"] = ratio


def test_the_layout_sentences_follow_the_ratios(speed: dict[str, Any]) -> None:
    _layout_ratios(speed, 3.0, fused=True)
    _layout_ratios(speed, 0.8, fused=False)
    for row in speed["results"]:  # the timing table gives the same order for 2-D inputs
        if row["implementation"] == "torch":
            row["median_s"] = next(r["median_s"] for r in speed["results"]
                                   if r["n"] == row["n"] and r["implementation"] == "qkv") / 0.8
    shown = beyond.layout_values(speed)
    assert shown["flash_slower_everywhere"] and not shown["flash_faster_everywhere"] and shown["flash_range"] == "3.00"
    assert shown["two_d_faster_everywhere"] and not shown["two_d_slower_everywhere"]
    _layout_ratios(speed, 0.9, fused=True)
    speed["layouts"]["results"][-1]["qkv_output_over_torch"] = 1.2  # one layout where qkv was slower
    shown = beyond.layout_values(speed)
    assert not shown["flash_slower_everywhere"] and not shown["flash_faster_everywhere"] and shown["flash_range"] == "0.90–1.20"


def test_the_weights_sentence_follows_what_keeping_them_cost(speed: dict[str, Any]) -> None:
    flash = [row for row in speed["layouts"]["results"] if row["torch_sdp_choice"] == 1 and row["dtype"] == "float32"]
    largest = max(row["n"] for row in flash)
    for row in flash:
        row["qkv_median_s"] = (2.5 if row["n"] == largest else 1.5) * row["qkv_output_median_s"]
    shown = beyond.layout_values(speed)
    assert shown["weights_largest_n"] == f"{largest:,}"
    assert shown["weights_largest_range"] == "2.50" and shown["weights_smaller_range"] == "1.50"
    next(row for row in flash if row["n"] != largest)["qkv_median_s"] *= 0.6  # once, keeping the weights was not slower
    shown = beyond.layout_values(speed)
    assert shown["weights_smaller_range"] == "0.90–1.50" and shown["weights_largest_range"] == "2.50"


def test_the_batch_heavy_heads_and_scores_are_read_from_the_measured_shapes(speed: dict[str, Any]) -> None:
    shown = beyond.layout_values(speed)
    rows = [row for row in speed["layouts"]["results"] if row["layout"] == "batch-heavy" and row["dtype"] == "float32"]
    assert shown["batch_heavy_heads"] == ", ".join(str(row["shape"][1]) for row in sorted(rows, key=lambda r: r["n"]))
    assert shown["batch_heavy_scores"].split(", ")[0] == f"{4 * rows[0]['shape'][1] * rows[0]['n'] ** 2 / 1e6:.1f}"


def test_each_row_names_the_kernel_pytorch_ran_and_a_changed_kernel_stops_the_page(speed: dict[str, Any]) -> None:
    rows = beyond.layout_values(speed)["rows"]
    assert [row.flash for row in rows if row.layout == "2-D"] == [False, False]
    assert all(row.flash for row in rows if row.layout != "2-D")
    next(row for row in speed["layouts"]["results"] if row["layout"] == "2-D")["torch_sdp_choice"] = 1
    with pytest.raises(ClaimError, match=r"beyond-quadratic.md: .*one kernel, math or flash, for 2-D"):
        beyond.layout_values(speed)


def test_a_layouts_part_of_one_length_stops_the_weights_sentence(speed: dict[str, Any]) -> None:
    part = speed["layouts"]
    part["ns"] = part["ns"][-1:]  # only the largest n: "at the smaller n" would speak of nothing
    part["results"] = [row for row in part["results"] if row["n"] == part["ns"][0]]
    with pytest.raises(ClaimError, match=r"weights' cost is said at the largest n and at the smaller ones"):
        beyond.layout_values(speed)


def test_the_two_paths_sentence_follows_the_recorded_bounds_and_paths(speed: dict[str, Any]) -> None:
    shown = beyond.layout_values(speed)
    results = speed["layouts"]["results"]
    large = [row for row in results if row["qk_factor"] != 1.0]
    standard = [row for row in results if row["qk_factor"] == 1.0]
    assert large and standard and [row.large_scores for row in shown["rows"]].count(True) == 1
    assert shown["standard_bound"] == f"{max(row['score_bound'] for row in standard):.1f}"
    assert shown["large_bound"] == f"{min(row['score_bound'] for row in large):.0f}"
    assert float(shown["standard_bound"]) <= float(shown["bound_limit"]) < float(shown["large_bound"])
    took_row_maximum = copy.deepcopy(speed)
    next(row for row in took_row_maximum["layouts"]["results"] if row["qk_factor"] == 1.0)["key_blocks"] = False
    with pytest.raises(ClaimError, match=r"key-block path for 2-D float32 at every n"):
        beyond.layout_values(took_row_maximum)
    small_large = copy.deepcopy(speed)
    for row in small_large["layouts"]["results"]:
        if row["qk_factor"] != 1.0:
            row["score_bound"] = 12.0
    with pytest.raises(ClaimError, match=r"large ones' past it"):
        beyond.layout_values(small_large)


def test_the_causal_block_floor_is_the_kernels_and_explains_the_share_at_the_smallest_n(project: Project) -> None:
    from qkv import _kernel

    shown = beyond.causal_values(load(project, "attention_speed"))
    assert shown["min_rows"] == str(_kernel._MIN_BLOCK_ROWS)
    assert shown["floor"] == [{"n": "128", "fraction": "n/4"}]  # 32 rows of 128: more than n/8
    assert shown["floor_share"] == [f"{causal_work_share(128, 128) * 100:g}%"] == ["62.5%"]


def _set_rounds(speed: dict[str, Any], n: int, tiled_over_qkv: list[float]) -> None:
    """Give tiled attention at `n` these per-round ratios to qkv (as many rounds as ratios)."""
    rows = {(row["n"], row["implementation"]): row for row in speed["results"]}
    qkv = rows[(n, "qkv")]
    qkv["samples_s"] = [qkv["median_s"]] * len(tiled_over_qkv)
    rows[(n, "tiled")]["samples_s"] = [qkv["median_s"] * ratio for ratio in tiled_over_qkv]
    rows[(n, "tiled")]["median_s"] = qkv["median_s"] * sorted(tiled_over_qkv)[len(tiled_over_qkv) // 2]


def test_slower_in_every_one_of_five_rounds_is_said_as_such_not_as_noise_nor_as_significant(speed: dict[str, Any]) -> None:
    shown = beyond.timing_values(speed)
    verdicts = {n: group.verdict for group in shown["groups"] for n in group.ns}
    assert verdicts["2,048"] == verdicts["4,096"] == "every_slower"  # 5 of 5 rounds in the committed results
    assert shown["sign_test_best_p"] == "0.0625" and not shown["sign_test_can_decide"]
    assert all(verdict == "mixed" for n, verdict in verdicts.items() if n not in ("2,048", "4,096"))
    assert shown["tiled_below_ns"] == ["128"] and shown["tiled_below_in_noise"]
    for n in speed["ns"]:  # seven rounds, all slower: the sign test reaches 5 % (p = 2/128)
        _set_rounds(speed, n, [1.2] * 7)
    for row in speed["results"]:
        row["samples_s"] = row["samples_s"] if len(row["samples_s"]) == 7 else row["samples_s"] + row["samples_s"][:2]
    shown = beyond.timing_values(speed)
    assert [group.verdict for group in shown["groups"]] == ["slower"] and shown["tiled_above"]


def test_rounds_that_go_both_ways_are_within_the_noise(speed: dict[str, Any]) -> None:
    _set_rounds(speed, 4096, [1.3, 0.9, 1.3, 0.9, 1.3])
    shown = beyond.timing_values(speed)
    mixed = next(group for group in shown["groups"] if group.verdict == "mixed")
    assert "4,096" in mixed.ns and mixed.slower_rounds[mixed.ns.index("4,096")] == "3"


def test_the_fused_kernel_sentence_counts_the_cells_and_names_the_exceptions(speed: dict[str, Any]) -> None:
    shown = beyond.layout_values(speed)
    flash = [row for row in speed["layouts"]["results"] if row["torch_sdp_choice"] == 1 and row["dtype"] == "float32"]
    slower = [row for row in flash if row["qkv_output_over_torch"] > 1 + beyond.LEVEL]
    level = [row for row in flash if abs(row["qkv_output_over_torch"] - 1) <= beyond.LEVEL]
    assert shown["flash_cells"] == str(len(flash)) and shown["flash_majority_count"] == str(len(slower))
    assert shown["flash_qkv_mostly_slower"] and shown["flash_opposite_cells"] == []
    assert [cell["n"] for cell in shown["flash_level_cells"]] == [f"{row['n']:,}" for row in level] == ["2,048"]


def test_a_ratio_within_the_band_is_level_not_faster_and_one_outside_it_is_faster(speed: dict[str, Any]) -> None:
    cell = next(row for row in speed["layouts"]["results"]
                if row["layout"] == "(1, 8, n, d)" and row["dtype"] == "float32" and row["n"] == 2048)
    cell["qkv_output_over_torch"] = 1 - beyond.LEVEL / 2
    shown = beyond.layout_values(speed)
    assert len(shown["flash_level_cells"]) == 1 and shown["flash_opposite_cells"] == []
    cell["qkv_output_over_torch"] = 1 - 2 * beyond.LEVEL
    shown = beyond.layout_values(speed)
    assert shown["flash_level_cells"] == [] and [c["ratio"] for c in shown["flash_opposite_cells"]] == ["0.90"]
    assert beyond.order(1 + beyond.LEVEL / 2) == "level" and beyond.order(1 + 2 * beyond.LEVEL) == "slower"


def test_a_two_d_cell_has_an_order_only_when_both_parts_agree(speed: dict[str, Any]) -> None:
    shown = beyond.layout_values(speed)  # committed: the layouts part says slower at 512 and 1,024, the table does not
    assert shown["two_d_unclear_ns"] == ["512", "1,024"] and shown["two_d_unclear_table"] == ["0.95", "0.53"]
    assert not shown["two_d_unclear_opposite"]  # 0.95 is level: not the opposite order, only not the same
    assert shown["two_d_faster_ns"] == ["2,048", "4,096"] and shown["two_d_slower_ns"] == []
    assert [group["range"] for group in shown["two_d_groups"]] == ["1.14–1.15", "0.31–0.71"]
    rows = {(row["n"], row["implementation"]): row for row in speed["results"]}
    for n in (512, 1024):  # the timing table now agrees: qkv slower there too
        rows[(n, "torch")]["median_s"] = rows[(n, "qkv")]["median_s"] / 1.3
    shown = beyond.layout_values(speed)
    assert shown["two_d_unclear_ns"] == [] and shown["two_d_slower_ns"] == ["512", "1,024"]
    rows[(512, "torch")]["median_s"] = rows[(512, "qkv")]["median_s"] / 0.7  # opposite orders at 512
    shown = beyond.layout_values(speed)
    assert shown["two_d_unclear_ns"] == ["512"] and shown["two_d_unclear_opposite"]
    for n in (1024, 2048, 4096):
        rows[(n, "torch")]["median_s"] = rows[(n, "qkv")]["median_s"] / 0.5
    for row in speed["layouts"]["results"]:
        if row["layout"] == "2-D" and row["dtype"] == "float32":
            row["qkv_output_over_torch"] = 0.5
    rows[(512, "torch")]["median_s"] = rows[(512, "qkv")]["median_s"] / 1.3  # the table says slower at 512
    shown = beyond.layout_values(speed)
    assert not shown["two_d_faster_everywhere"] and shown["two_d_unclear_ns"] == ["512"]
    rows[(512, "torch")]["median_s"] = rows[(512, "qkv")]["median_s"] / 0.5
    assert beyond.layout_values(speed)["two_d_faster_everywhere"]


def test_the_online_bound_is_printed_rounded_up() -> None:
    from decimal import Decimal

    from qkv_site.values.claims import noise

    mantissa, exponent = beyond.rounded_up(noise(1.0))
    assert Decimal(mantissa).scaleb(exponent) >= Decimal(noise(1.0)) and (mantissa, exponent) == ("1.5", -14)
    assert beyond.same_result(0.0, 0.0)["bound"] == "1.5 \\times 10^{-14}"
    with pytest.raises(ClaimError, match="up to floating-point rounding"):
        beyond.same_result(0.0, 1.5e-14)


def test_the_time_caption_says_how_the_rounds_went_n_by_n(speed: dict[str, Any]) -> None:
    shown = beyond.timing_values(speed)
    assert [(run["verdict"], run["ns"], run["up_to"]) for run in shown["caption_runs"]] == [
        ("mixed", ["128", "256", "512", "1,024"], True), ("every_slower", ["2,048", "4,096"], False)]
    _set_rounds(speed, 512, [1.2] * 5)  # every round slower at 512: the mixed n are no longer one run
    runs = beyond.timing_values(speed)["caption_runs"]
    assert [run["verdict"] for run in runs] == ["mixed", "every_slower", "mixed", "every_slower"]
    assert runs[0]["up_to"] and runs[0]["last"] == "256" and runs[2]["ns"] == ["1,024"]


def test_the_causal_call_slower_at_small_n_is_said(speed: dict[str, Any]) -> None:
    shown = beyond.causal_values(speed)
    assert shown["qkv_slower_small"] == ["128", "256", "512"] and shown["qkv_slower_small_range"] == "1.11–1.94"
    _set_ratio(speed, "qkv_causal", "qkv", 0.9)
    assert beyond.causal_values(speed)["qkv_slower_small"] == []


# The programs the page shows ----------------------------------------------------------------------


def test_beyond_quadratic_programs_agree_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv.blocks import causal_work_share
    from qkv.tiled import DEFAULT_BLOCK_SIZE
    from qkv_site.pages.beyond_quadratic import tiled_causal_share, values

    shown = values(project)
    page = DOCS_SRC / "beyond-quadratic"
    _, printed = run_program(page / "online_softmax.py")  # the table's last running max and sum, rounded as the program prints them
    last = [row for row in shown["online"]["rows"] if row.block == 2]
    assert printed.splitlines()[1] == f"[{' '.join(row.running_max for row in last)}] [{' '.join(row.running_sum for row in last)}]"
    assert "[[0.64 0.36]" in printed and "0.64 & 0.36" in shown["online"]["weights"]
    _, printed = run_program(page / "tiled.py")
    assert printed.split() == ["(1000,", "1000)", "(1000,", "64)", "True", "True"]
    _, printed = run_program(page / "causal_work.py")  # counted block by block, against the kernel's own count and the page's shares
    lines = [line.split() for line in printed.splitlines()]
    qkv = {int(n): float(share) for who, n, _, share in lines if who == "qkv"}
    tiled = {int(n): float(share) for who, n, size, share in lines if who == "tiled" and int(size) == DEFAULT_BLOCK_SIZE}
    assert qkv == {n: causal_work_share(n, n) for n in qkv}
    assert tiled == {n: tiled_causal_share(n, DEFAULT_BLOCK_SIZE) for n in tiled} and len(tiled) == 2
    causal = shown["causal"]
    assert [causal["share_1024"], causal["share_4096"]] == [f"{qkv[n] * 100:g}%" for n in (1024, 4096)]
    assert causal["tiled_skip_shares"][-2:] == [f"{tiled[n] * 100:g}%" for n in (2048, 4096)]
    assert [causal["rows_1024"], causal["rows_4096"]] == [rows for who, n, rows, _ in lines if who == "qkv"]
    _, printed = run_program(page / "kv_cache.py")
    sizes = [int(line.split()[-1]) for line in printed.splitlines()]
    from qkv.complexity import format_bytes

    assert [format_bytes(size) for size in sizes] == [row.total for row in shown["kv"]["rows"]]
    _, printed = run_program(page / "exercise_1.py")
    gqa = next(line for line in printed.splitlines() if line.startswith("GQA"))
    assert f" {shown['kv']['exercise']['gqa']} × 1" in gqa
    _, printed = run_program(page / "exercise_2.py")
    assert printed.split() == ["1", "True", "7", "True", "64", "True"]


# The sentences on the committed results and on altered ones (qkv_site.values.claims) -------------


EMPTY_LIST = re.compile(r"\b(none|None)\b|[=：]\s*无|\$n\$ = (?!\d)|\b(and|和)\s*[。.，,]")  # "n = none", "n = " with no n


@pytest.fixture
def memory(project: Project) -> dict:
    return copy.deepcopy(load(project, "attention_memory"))


def _scale(speed: dict, implementation: str, factor: float, ns: list[int] | None = None) -> dict:
    for row in speed["results"]:
        if row["implementation"] == implementation and (ns is None or row["n"] in ns):
            row["samples_s"] = [s * factor for s in row["samples_s"]]
            row["median_s"] *= factor
    return speed


def _tiled_as_qkv(speed: dict, factors: list[float]) -> dict:
    """Nine rounds of qkv around its median, and tiled's = qkv's round i times factors[i] (which is faster is known round by round)."""
    rows = {(row["n"], row["implementation"]): row for row in speed["results"]}
    for n in speed["ns"]:
        qkv, tiled = rows[(n, "qkv")], rows[(n, "tiled")]
        qkv["samples_s"] = [qkv["median_s"] * (1 + (i - 4) / 100) for i in range(9)]  # nine rounds, whatever was measured
        tiled["samples_s"] = [s * f for s, f in zip(qkv["samples_s"], factors)]
        tiled["median_s"] = float(np.median(tiled["samples_s"]))
    return speed


ResultsProject = Callable[[dict, dict], Project]  # the project with these attention_speed and attention_memory results


@pytest.fixture
def with_results(project: Project, tmp_path: Path) -> ResultsProject:
    """The project with its results folder swapped for one in ``tmp_path`` holding the given results."""

    def make(speed: dict, memory: dict) -> Project:
        folder = tmp_path / "results"
        folder.mkdir(exist_ok=True)
        for name, results in (("attention_speed", speed), ("attention_memory", memory)):
            (folder / f"{name}.json").write_text(json.dumps(results), encoding="utf-8")
        return dataclasses.replace(project, results_dir=folder)

    return make


def _page_text(with_results: ResultsProject, speed: dict, memory: dict, lang: str) -> str:
    """The page's Markdown as the build renders it, on these results, without the figures' folded code."""
    from qkv_site.builder.page_values import render

    project = with_results(speed, memory)
    beyond.values.cache_clear()
    try:
        text = (project.docs_dir / lang / "beyond-quadratic.md").read_text(encoding="utf-8")
        page = render(text.split("---\n", 2)[2], {"values": "beyond_quadratic"}, f"{lang}/beyond-quadratic.md", project,
                      functions=figure_function(lang, project))
        return re.sub(r'<details class="example figure-code".*?</details>', "", page, flags=re.S)  # the prose: no figure code
    finally:
        beyond.values.cache_clear()


# The helper --------------------------------------------------------------------------------------




# The beyond page on the committed results and on altered ones ------------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_committed_results_give_sentences_without_an_empty_list(with_results: ResultsProject, speed: dict, memory: dict,
                                                                   lang: str) -> None:
    assert not EMPTY_LIST.search(_page_text(with_results, speed, memory, lang))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_altered_results_render_other_true_sentences_without_an_empty_list(with_results: ResultsProject, speed: dict,
                                                                           memory: dict, lang: str) -> None:
    _tiled_as_qkv(speed, [1.3, 0.9, 1.3, 0.9, 1.3, 0.9, 1.3, 0.9, 1.3])  # within the noise at every n
    text = _page_text(with_results, speed, memory, lang)
    assert not EMPTY_LIST.search(text)
    assert ("没有超出计时的波动" if lang == "zh" else "within the timing noise") in text
    assert ("明显比 qkv" if lang == "zh" else "tiled attention was clearly") not in text


def test_the_memory_sentence_follows_the_measured_peak(memory: dict) -> None:
    for row in memory["results"]:  # the scores written into the weights and softmaxed in place: one matrix
        row["naive_peak_bytes"] = row["n_by_n_float32_bytes"] + row["n"] * 64 * 4 * 2
    assert beyond.memory_values(memory)["one_matrix"]
    for row in memory["results"]:  # a softmax that keeps its scores, exponentials and weights: three matrices
        row["naive_peak_bytes"] = 3 * row["n_by_n_float32_bytes"] + row["n"] * 64 * 4 * 2
    shown = beyond.memory_values(memory)
    assert not shown["one_matrix"] and shown["per_matrix"] == "3.01–3.50", shown  # 3 + 2·n·d·4 / (4·n²) = 3 + 128/n


def test_tiled_memory_that_grows_like_n_squared_stops_the_page(memory: dict) -> None:
    for row in memory["results"]:
        row["tiled_peak_bytes"] = row["naive_peak_bytes"] // 2
    with pytest.raises(ClaimError, match="beyond-quadratic.md: .*Tiled attention grows only linearly"):
        beyond.memory_values(memory)
    largest = max(row["n"] for row in memory["results"])
    for row in memory["results"]:  # the output plus a large constant: the last doubling still grows 1.5×, the slope is far below 1
        row["tiled_peak_bytes"] = row["n"] * 64 * 4 + largest * 64 * 2
    with pytest.raises(ClaimError, match="beyond-quadratic.md: .*tiled attention only linearly"):
        beyond.memory_values(memory)


def _section(text: str, start: str, end: str) -> str:
    """The rendered page between two of its headings' anchors."""
    return text[text.index(start):text.index(end)]


def _timing(with_results: ResultsProject, speed: dict, memory: dict, lang: str = "en") -> tuple[str, str]:
    """The tiled-against-qkv paragraph and the time figure's caption, as the page renders them on these results."""
    section = _section(_page_text(with_results, speed, memory, lang), "{ #measured-time }", "{ #by-layout }")
    paragraph = next(p for p in section.split("\n\n") if "tiled_attention" in p and "1" in p)
    caption = section[section.index("<figcaption"):]
    return paragraph, caption


def test_tiled_slower_at_every_n_is_said_with_the_block_size_of_the_run(with_results: ResultsProject, speed: dict,
                                                                          memory: dict) -> None:
    _tiled_as_qkv(speed, [1.2] * 9)
    paragraph, caption = _timing(with_results, speed, memory)
    assert "lies above qkv's at every $n$" in caption and "see above" not in caption
    assert "clearly slower than qkv (20% by the medians), slower in at least 9 of the 9" in paragraph, paragraph
    assert "faster" not in paragraph and "likeliest explanation" not in paragraph
    block = beyond.tiled_block_size(speed)
    assert f"default block size, {block:,}" in paragraph
    assert ("single tile" in paragraph) == any(n <= block for n in speed["ns"])  # no loop to blame there


def test_tiled_faster_at_every_n_picks_the_other_sentences(with_results: ResultsProject, speed: dict, memory: dict) -> None:
    _tiled_as_qkv(speed, [0.5] * 9)
    paragraph, caption = _timing(with_results, speed, memory)
    assert "clearly faster than qkv (50% by the medians), faster in at least 9 of the 9" in paragraph, paragraph
    assert "clearly slower" not in paragraph and "likeliest explanation is memory traffic" in paragraph
    assert "lies below qkv's at every $n$" in caption
    zh, _ = _timing(with_results, speed, memory, "zh")
    assert "明显比 qkv 快" in zh and "最可能的解释" in zh and not EMPTY_LIST.search(zh)


def test_a_difference_the_rounds_do_not_agree_on_is_called_noise(with_results: ResultsProject, speed: dict, memory: dict) -> None:
    _tiled_as_qkv(speed, [1.3, 0.9, 1.3, 0.9, 1.3, 0.9, 1.3, 0.9, 1.3])  # slower in 5 rounds of 9, faster in 4
    paragraph, _ = _timing(with_results, speed, memory)
    assert "clearly" not in paragraph and "within the timing noise" in paragraph, paragraph
    assert not EMPTY_LIST.search(paragraph)


def test_tiled_faster_at_some_n_and_slower_at_others(with_results: ResultsProject, speed: dict, memory: dict) -> None:
    small = speed["ns"][:3]
    _tiled_as_qkv(speed, [1.2] * 9)
    _scale(speed, "tiled", 0.5, small)  # 0.6 of qkv at the small n
    paragraph, caption = _timing(with_results, speed, memory)
    assert "At $n$ = 1,024, 2,048 and 4,096 tiled attention was clearly slower than qkv (20% by the medians)" in paragraph, paragraph
    assert "At $n$ = 128, 256 and 512 tiled attention was clearly faster than qkv (40% by the medians)" in paragraph
    assert "likeliest explanation" not in paragraph  # slower at the largest n: no explanation of a speed-up
    assert "crosses qkv's" in caption


def test_times_that_no_longer_grow_like_n_squared_stop_the_caption(speed: dict) -> None:
    for row in speed["results"]:
        scale = {"qkv": 1, "tiled": 1.2, "torch": 0.8, "python": 500}.get(row["implementation"], 1)
        row["median_s"] = 1e-6 * scale * row["n"]  # time ∝ n: slope 1, rising at every n
        row["samples_s"] = [row["median_s"]] * len(row["samples_s"])
    with pytest.raises(ClaimError, match="beyond-quadratic.md: .*run parallel to n².*they never do"):
        beyond.timing_values(speed)


def test_the_repeats_each_implementation_had_are_said(with_results: ResultsProject, speed: dict, memory: dict) -> None:
    def repeats_sentence(lang: str) -> str:
        text = _page_text(with_results, speed, memory, lang)
        return next(line for line in text.splitlines() if line.startswith(("Each number is", "每个数字是")))

    speed["torch"]["threads"] = 2
    for row in speed["results"]:
        row["samples_s"] = [row["median_s"]] * (3 if row["implementation"] == "python" else 9)
    assert repeats_sentence("en") == "Each number is the median of 9 interleaved repeats (the pure-Python loop had only 3):"
    assert note(speed, "zh") == "9 次交替重复的中位数（纯 Python 循环只有 3 次），2 个线程"
    for row in speed["results"]:
        row["samples_s"] = [row["median_s"]] * (5 if row["implementation"] == "torch" else 3 if row["implementation"] == "python" else 9)
    assert repeats_sentence("zh") == "每个数字是 9 次交替重复的中位数（PyTorch只重复了 5 次，纯 Python 循环只重复了 3 次）："
    for row in speed["results"]:
        row["samples_s"] = [row["median_s"]] * 7
    assert repeats_sentence("zh") == "每个数字是 7 次交替重复的中位数："
    assert note(speed, "en") == "Median of 7 interleaved repeats, 2 threads"
    speed["results"][0]["samples_s"] = speed["results"][0]["samples_s"][:5]  # one n timed fewer times: no one count
    with pytest.raises(ValueError, match="a different number of times at different n"):
        beyond.timing_values(speed)


# The build ---------------------------------------------------------------------------------------


@pytest.mark.build  # builds a small site of its own
def test_a_false_claim_stops_the_strict_build_naming_the_page_and_the_sentence(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(textwrap.dedent("""\
        # Timings

        ```python exec="on"
        from qkv_site.values.claims import Claims

        tiled, qkv = 1.2, 1.0  # seconds, as if re-measured
        Claims("timings.md").require(tiled < qkv, sentence="Tiled was faster.", checked=f"{tiled} < {qkv}")
        print("Tiled was faster.")
        ```
        """), encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: claims\nplugins:\n  - markdown-exec\nmarkdown_extensions:\n  - pymdownx.superfences\n", encoding="utf-8")
    result = build_site(tmp_path / "site", config=config)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-2000:]
    assert "timings.md: the data no longer support the sentence: Tiled was faster." in output, output[-2000:]
    assert "checked: 1.2 < 1.0" in output


def test_the_kv_cache_caption_follows_the_model_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    import qkv.kv_cache
    from qkv_site.figures import kv_cache_sizes

    assert beyond.KV_FIGURE_SEQ_LEN == kv_cache_sizes.SEQ_LEN  # the caption's length is the figure's
    assert beyond.kv_cache_values()["first"] == "Llama-2-7B"
    shapes = list(qkv.kv_cache.MODEL_SHAPES)
    shapes[-1] = dataclasses.replace(shapes[-1], kv_heads=64)  # a 70B model without GQA: a larger cache
    monkeypatch.setattr(qkv.kv_cache, "MODEL_SHAPES", tuple(shapes))
    with pytest.raises(ClaimError, match="beyond-quadratic.md: .*its KV cache is smaller than the first one's"):
        beyond.kv_cache_values()


def test_the_online_softmax_result_is_called_the_same_up_to_rounding_only_when_it_is() -> None:
    assert beyond.same_result(0.0, 0.0) == beyond.same_result(2.2e-16, 0.0)  # the page prints no machine's last bits
    with pytest.raises(ClaimError, match="beyond-quadratic.md: .*up to floating-point rounding"):
        beyond.same_result(1e-3, 0.0)  # not rounding any more


def test_the_chinese_page_cites_the_model_shapes_in_chinese() -> None:
    import qkv.kv_cache

    for shape in qkv.kv_cache.MODEL_SHAPES:
        zh = beyond.model_source_zh(shape.source)
        assert not re.search(r"\b(paper|Table|layers|heads|with|hypothetical)\b", zh), zh
    with pytest.raises(ValueError, match="English words left in Chinese"):
        beyond.model_source_zh("Some paper, Table 9: twelve layers")


DECODE_NKS = [1024, 4096, 32768]  # the full run's n_k, whatever the committed results hold
_DECODE_LAYOUTS = [("decode (1, 8, 1, d)", 8, "float32"), ("decode (1, 8, 1, d)", 8, "float16"),
                   ("decode GQA (1, 32, 1, d), 8 K/V heads", 32, "float32")]


@pytest.fixture
def decoded(speed: dict[str, Any]) -> dict[str, Any]:
    """The results with a synthetic decode part of the full run's shape, the fields measure_decode and decode_part
    write: every decode row 1 ms for PyTorch and 1.2 ms for qkv, on the machine the page names."""
    rows = []
    for n_k in DECODE_NKS:
        for layout, heads, dtype in _DECODE_LAYOUTS:
            qkv_s, torch_s = 1.2e-3, 1e-3
            rows.append({"layout": layout, "shape_q": [1, heads, 1, 64], "shape_kv": [1, 8, n_k, 64], "n_k": n_k,
                         "dtype": dtype, "enable_gqa": heads != 8, "decode_path": True,
                         "torch_kernel": "flash attention (fused)", "torch_sdp_choice": 1,
                         "qkv_output_calls_per_sample": 100, "torch_calls_per_sample": 100,
                         "qkv_output_median_s": qkv_s, "torch_median_s": torch_s,
                         "qkv_output_samples_s": [qkv_s] * 5, "torch_samples_s": [torch_s] * 5,
                         "qkv_output_over_torch": qkv_s / torch_s})
    speed["decode"] = {"n_ks": DECODE_NKS, "repeats": 5, "results": rows, "torch_threads": 2, "qkv_decode_threads": 1,
                       "qkv_decode_blas_pinned": True, "threads_note": "synthetic",
                       "load_average_at_start": [0.1, 0.1, 0.1], "load_average_at_end": [0.1, 0.1, 0.1],
                       "note": "synthetic", "machine": copy.deepcopy(speed["machine"])}
    return speed


def _decode_ratios(speed: dict[str, Any], by_n_k: dict[int, float]) -> None:
    """Make qkv take by_n_k[n_k] times PyTorch's time in every decode row."""
    for row in speed["decode"]["results"]:
        row["qkv_output_over_torch"] = by_n_k[row["n_k"]]
        row["qkv_output_median_s"] = row["torch_median_s"] * by_n_k[row["n_k"]]


def test_the_decode_sentences_give_each_ratio_in_the_order_of_n_k(decoded: dict[str, Any]) -> None:
    _decode_ratios(decoded, dict(zip(DECODE_NKS, [1.6, 1.02, 0.5], strict=True)))
    shown = beyond.decode_values(decoded)
    assert len(shown["rows"]) == len(_DECODE_LAYOUTS) and shown["n_ks"] == ["1,024", "4,096", "32,768"]
    for row in shown["rows"]:
        assert row.ratios == ["1.60", "1.02", "0.50"]
        assert row.runs == [{"way": "slower", "n_ks": ["1,024"], "ratios": ["1.60"]},
                            {"way": "level", "n_ks": ["4,096"], "ratios": ["1.02"]},
                            {"way": "faster", "n_ks": ["32,768"], "ratios": ["0.50"]}]
    assert [row.shape_q for row in shown["rows"]] == ["(1, 8, 1, d)", "(1, 8, 1, d)", "(1, 32, 1, d)"]
    assert {row.shape_kv for row in shown["rows"]} == {"(1, 8, n_k, d)"}
    _decode_ratios(decoded, dict(zip(DECODE_NKS, [1.3, 0.5, 1.6], strict=True)))  # the worst at the largest n_k
    for row in beyond.decode_values(decoded)["rows"]:
        assert [(run["way"], run["ratios"]) for run in row.runs] == [("slower", ["1.30"]), ("faster", ["0.50"]),
                                                                     ("slower", ["1.60"])]
    _decode_ratios(decoded, dict.fromkeys(DECODE_NKS, 0.5))
    for row in beyond.decode_values(decoded)["rows"]:
        assert row.runs == [{"way": "faster", "n_ks": ["1,024", "4,096", "32,768"], "ratios": ["0.50"] * 3}]


def test_grouped_query_decode_is_about_as_long_only_when_the_times_say_so(decoded: dict[str, Any]) -> None:
    rows = decoded["decode"]["results"]
    mha = {row["n_k"]: row for row in rows if not row["enable_gqa"] and row["dtype"] == "float32"}
    for factor, about, longer, said in ((1.1, True, False, "1.10"), (2.0, False, True, "2.00"), (0.7, False, False, "0.70")):
        for row in rows:
            if row["enable_gqa"]:
                row["qkv_output_median_s"] = factor * mha[row["n_k"]]["qkv_output_median_s"]
        shown = beyond.decode_values(decoded)
        assert shown["gqa_about_as_long"] is about and shown["gqa_longer"] is longer and shown["gqa_ratios"] == [said] * 3
    first = next(row for row in rows if row["enable_gqa"] and row["n_k"] == DECODE_NKS[0])
    first["qkv_output_median_s"] = 2.5 * mha[DECODE_NKS[0]]["qkv_output_median_s"]  # 2.5 times at the smallest n_k only
    shown = beyond.decode_values(decoded)
    assert not shown["gqa_about_as_long"] and shown["gqa_longer"] and shown["gqa_ratios"] == ["2.50", "0.70", "0.70"]
    assert shown["gqa_heads"] == "32" and shown["kv_heads"] == "8" and shown["gqa_group"] == "4"


def test_pytorchs_own_grouped_query_ratio_stands_beside_qkvs(decoded: dict[str, Any]) -> None:
    rows = decoded["decode"]["results"]
    mha = {row["n_k"]: row for row in rows if not row["enable_gqa"] and row["dtype"] == "float32"}
    for row in rows:
        if row["enable_gqa"]:  # PyTorch's grouped-query decode 3×, 2×, 1.5× its MHA decode; qkv's 1.1×
            row["torch_median_s"] = {1024: 3.0, 4096: 2.0, 32768: 1.5}[row["n_k"]] * mha[row["n_k"]]["torch_median_s"]
            row["qkv_output_median_s"] = 1.1 * mha[row["n_k"]]["qkv_output_median_s"]
    shown = beyond.decode_values(decoded)
    assert shown["torch_gqa_ratios"] == ["3.00", "2.00", "1.50"] and shown["gqa_ratios"] == ["1.10"] * 3


def test_the_threads_are_read_from_the_decode_part_and_qkv_on_more_than_one_stops_the_page(decoded: dict[str, Any]) -> None:
    shown = beyond.decode_values(decoded)
    assert shown["torch_threads"] == {"en": "two", "zh": "两个"} and not shown["torch_one_thread"]
    decoded["decode"]["torch_threads"] = 1
    assert beyond.decode_values(decoded)["torch_one_thread"]
    decoded["decode"]["qkv_decode_threads"] = 2  # one_blas_thread could not set OpenBLAS
    with pytest.raises(ClaimError, match=r"beyond-quadratic.md: .*qkv's decode path ran on one thread"):
        beyond.decode_values(decoded)
    del decoded["decode"]["torch_threads"]
    with pytest.raises(ValueError, match=r"does not record the threads .*--decode-only"):
        beyond.decode_values(decoded)


def test_decode_on_another_kind_of_machine_stops_the_page(decoded: dict[str, Any]) -> None:
    decoded["decode"]["machine"]["usable_cpus"] = decoded["machine"]["usable_cpus"] + 2
    with pytest.raises(ClaimError, match=r"beyond-quadratic.md: .*measured on the kind of machine the page names"):
        beyond.decode_values(decoded)


@pytest.mark.parametrize(("field", "value", "sentence"), [
    ("torch_sdp_choice", 0, "at decode PyTorch ran its fused flash kernel"),
    ("decode_path", False, "qkv took its decode path in every decode row"),
])
def test_a_decode_row_off_the_fused_kernel_or_the_decode_path_stops_the_page(decoded: dict[str, Any], field: str,
                                                                              value: object, sentence: str) -> None:
    beyond.decode_values(decoded)  # the synthetic part passes as it is
    decoded["decode"]["results"][-1][field] = value
    with pytest.raises(ClaimError, match=f"beyond-quadratic.md: .*{sentence}"):
        beyond.decode_values(decoded)


def test_results_without_a_decode_part_say_which_script_makes_it(speed: dict[str, Any]) -> None:
    speed.pop("decode", None)
    with pytest.raises(ValueError, match=r"no decode part .*benchmarks/attention_speed.py"):
        beyond.decode_values(speed)
