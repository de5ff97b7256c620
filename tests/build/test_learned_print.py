"""The learned widget on paper (qkv_site.builder.learned_print): the figure's numbers are numpy's forward pass of
the exported model, its words the widget's, the page carries it hidden and lazy beside each widget, and it
names the page's address only when the build knows it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from bs4 import BeautifulSoup
from learned_print_support import LEARNED, TASKS, figure_path, figure_texts, printed_panels
from repository import ROOT, SITE_URL
from site_pages import built_page, page_url

from qkv.learning.rollout import rollout_weights
from qkv_site.builder.learned_models import export, exported_model
from qkv_site.builder.learned_print import (
    HEAT,
    LABELS,
    PRINT_CLASS,
    drawn_figure,
    probability_text,
    text_width,
    with_print_figures,
)
from qkv_site.project import RESULTS_DIR
from qkv_site.values.formatting import fixed

RESULTS = ROOT / RESULTS_DIR
ADDRESS = "https://example.org/site/learned-attention/"


def test_the_figure_uses_the_widgets_heat_ramp() -> None:
    from qkv_site.figures.style import LIGHT

    assert HEAT == LIGHT.heat
    css = (ROOT / "docs" / "assets" / "stylesheets" / "extra.css").read_text(encoding="utf-8")  # the colours the widgets share
    assert tuple(re.search(rf"--qkv-heat-light-{i}:\s*(#[0-9a-f]{{6}})", css)[1] for i in range(3)) == HEAT


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("task", TASKS)
def test_the_figure_prints_numpys_forward_pass_of_the_exported_model(task: str, lang: str) -> None:
    data = export(RESULTS, task)
    model = exported_model(data)
    figure = drawn_figure(task, lang, ADDRESS, RESULTS)
    printed = printed_panels(figure.svg, lang)
    sentences = data["sentences"]["article"]
    assert len(sentences) == 2 and len(printed) == len(figure.panels) == 2
    for sentence, panel, shown in zip(sentences, figure.panels, printed, strict=True):
        words = model.tokens(sentence)
        weights = model.attention(sentence)
        it = words.index("it")
        rows = [weights[0, it], weights[1, it], rollout_weights(weights)[-1, it]]
        for (_, _, values), expected in zip(panel.rows, rows, strict=True):
            np.testing.assert_allclose(values, expected, rtol=0, atol=1e-15)
        p = model.probabilities(sentence)
        best = model.resolve(sentence)
        digits = fixed(100 * p[best], 1)
        said = {"100.0": LABELS[lang]["above"], "0.0": LABELS[lang]["below"]}.get(digits)  # a softmax is never 1
        assert shown["verdict"] == LABELS[lang]["answer"].format(word=best, p=said or LABELS[lang]["percent"].format(p=digits))
        assert "100.0%" not in shown["verdict"] and "0.0%" not in shown["verdict"]
        assert f"“{sentence}”" in figure_texts(figure.svg)
        assert shown["words"] == words
        for (label, cells), expected in zip(shown["rows"].items(), rows, strict=True):
            # as the widget prints a weight: two decimals, "<0.01" for what rounds to 0 but is not 0
            assert cells == ["<0.01" if 0 < w < 0.005 else f"{w:.2f}" for w in expected], label
    assert f"“{model.resolve(sentences[0])}”" in printed[0]["verdict"] and f"“{model.resolve(sentences[1])}”" in printed[1]["verdict"]


def test_a_probability_that_rounds_to_certainty_is_printed_as_a_bound() -> None:
    for lang in ("zh", "en"):
        assert probability_text(1 - 1e-6, lang) == LABELS[lang]["above"] and "99.9%" in LABELS[lang]["above"]
        assert probability_text(1e-6, lang) == LABELS[lang]["below"] and "0.1%" in LABELS[lang]["below"]
        assert probability_text(0.5, lang) == LABELS[lang]["percent"].format(p="50.0")


def test_each_task_s_figure_has_its_own_alt_text() -> None:
    for lang in ("zh", "en"):
        alts = {drawn_figure(task, lang, ADDRESS, RESULTS).alt for task in TASKS}
        assert len(alts) == len(TASKS), alts


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_figure_names_the_page_only_when_the_build_knows_its_address(lang: str) -> None:
    linked = figure_texts(drawn_figure("coreference", lang, ADDRESS, RESULTS).svg)
    unlinked = figure_texts(drawn_figure("coreference", lang, None, RESULTS).svg)
    assert LABELS[lang]["online"] + ADDRESS in linked
    assert LABELS[lang]["online-unlinked"] in unlinked and not any("http" in text for text in unlinked)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_line_of_the_figure_fits_its_width(lang: str) -> None:
    figure = drawn_figure("referent", lang, ADDRESS, RESULTS)
    starts = re.findall(r'<text x="([\d.]+)" y="[\d.]+" font-size="([\d.]+)"[^>]*?(?<!middle")>([^<]*)</text>', figure.svg)
    assert len(starts) >= 10
    for x, size, text in starts:  # lines that start at the margin (the table's cells are centred in theirs)
        assert float(x) + text_width(text, float(size)) <= figure.width, text


def test_the_page_gets_a_hidden_lazy_figure_after_each_widget(tmp_path: Path) -> None:
    page = '<p>try</p>\n<div class="qkv-learned-widget" data-model="coreference"></div>\n<p>and</p>\n' \
           '<div class="qkv-learned-widget" data-model="referent"> </div>'
    out = with_print_figures(page, tmp_path / "page" / "index.html", RESULTS, "en", ADDRESS)
    soup = BeautifulSoup(out, "html.parser")
    for task in TASKS:
        widget = soup.select_one(f'.qkv-learned-widget[data-model="{task}"]')
        block = widget.find_next_sibling()
        assert block["class"] == [PRINT_CLASS] and block.has_attr("hidden")
        image = block.img
        assert image["loading"] == "lazy" and image["alt"] and int(image["width"]) > 0 and int(image["height"]) > 0
        svg = (tmp_path / "page" / image["src"]).read_text(encoding="utf-8")
        assert svg == drawn_figure(task, "en", ADDRESS, RESULTS).svg
    assert with_print_figures("<p>no widget</p>", tmp_path / "other" / "index.html", RESULTS, "en", None) == "<p>no widget</p>"
    assert not (tmp_path / "other").exists()
    with pytest.raises(ValueError, match="empty"):
        with_print_figures('<div class="qkv-learned-widget" data-model="referent"><p>x</p></div>', tmp_path / "index.html", RESULTS, "en", None)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_built_page_carries_the_figure_with_its_published_address(site: Path, lang: str) -> None:
    article = built_page(site, LEARNED, lang).select_one("article")
    widgets = article.select(".qkv-learned-widget")
    assert [widget["data-model"] for widget in widgets] == list(TASKS)
    address = SITE_URL + page_url(LEARNED, lang).lstrip("/")
    for widget in widgets:
        block = widget.find_next_sibling()
        assert block is not None and block["class"] == [PRINT_CLASS] and block.has_attr("hidden"), block
        assert block.img["loading"] == "lazy"
        svg = figure_path(site, lang, widget["data-model"]).read_text(encoding="utf-8")
        assert block.img["src"] == figure_path(site, lang, widget["data-model"]).name
        assert LABELS[lang]["online"] + address in figure_texts(svg)
        assert len(printed_panels(svg, lang)) == 2
