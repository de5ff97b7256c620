"""Sentences about computed and measured numbers check themselves (qkv_site.content.claims): the beyond page's
sentences follow their data, and a false one stops the strict build (the self-vs-cross figure's: test_self_vs_cross_page.py)."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import textwrap
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from conftest import build_site

from qkv_site.content.claims import ClaimError, Claims
from qkv_site.figures.attention_time import note
from qkv_site.figures.results import load
from qkv_site.pages import beyond_quadratic as beyond
from qkv_site.project import Project

EMPTY_LIST = re.compile(r"\b(none|None)\b|[=：]\s*无|\$n\$ = (?!\d)|\b(and|和)\s*[。.，,]")  # "n = none", "n = " with no n


@pytest.fixture
def speed(project: Project) -> dict:
    return copy.deepcopy(load(project, "attention_speed"))


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
    """The page's Markdown as the build renders it, on these results."""
    from qkv_site.builder.page_values import render

    project = with_results(speed, memory)
    beyond.values.cache_clear()
    try:
        text = (project.docs_dir / lang / "beyond-quadratic.md").read_text(encoding="utf-8")
        return render(text.split("---\n", 2)[2], {"values": "beyond_quadratic"}, f"{lang}/beyond-quadratic.md", project)
    finally:
        beyond.values.cache_clear()


# The helper --------------------------------------------------------------------------------------


def test_a_claim_the_data_do_not_support_raises_naming_the_page_and_the_sentence() -> None:
    claims = Claims("p.md")
    claims.require(2 > 1, sentence="Faster.")  # holds: nothing happens
    with pytest.raises(ClaimError, match="p.md: the data no longer support the sentence: Faster.; checked: 2 < 1"):
        claims.require(2 < 1, sentence="Faster.", checked="2 < 1")
    with pytest.raises(TypeError, match="must be a bool"):
        claims.require(np.array([True, False]), sentence="True.")  # an array's truth is not a condition


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
        from qkv_site.content.claims import Claims

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
