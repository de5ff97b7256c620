"""The build-time figures: every file is there, valid, stable, cached, and its labels are text the reader's fonts draw."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from fontTools.pens.recordingPen import RecordingPen
from fontTools.ttLib import TTCollection, TTFont
from matplotlib.figure import Figure
from repository import LANGUAGES

from qkv_site.figures import fonts, svg_text
from qkv_site.figures.labels import LABELS, text
from qkv_site.figures.registry import FIGURES, SCHEMES, STAMP, MissingGlyphError, render_all, render_svg
from qkv_site.figures.stamp import up_to_date
from qkv_site.figures.style import Theme
from qkv_site.project import Project

EXPECTED = [(lang, name, scheme) for lang in LANGUAGES for name in FIGURES for scheme in SCHEMES]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory, project: Project) -> Path:
    """A folder of this module's with every figure in both languages and schemes: a copy of the build's
    (``.cache/figures/``) when its stamps say they were drawn from these sources on this machine's
    arithmetic, else every figure drawn here (render_all also redraws a copy whose stamps no longer
    hold). (Whether another process draws the same bytes is the check of tests/build/test_another_machine.py:
    its build, from a clean copy on other arithmetic, draws every figure again and compares every file with
    the session's build.)"""
    docs = tmp_path_factory.mktemp("figures")
    built = project.cache_dir / "figures"
    if up_to_date(built, project):
        shutil.copytree(built, docs, dirs_exist_ok=True)
    if not up_to_date(docs, project):
        render_all(docs, project)
    return docs


def figure_path(docs: Path, lang: str, name: str, scheme: str) -> Path:
    return docs / lang / "figures" / f"{name}.{scheme}.svg"


def test_every_figure_is_written_in_both_languages_and_schemes(rendered):
    assert set(rendered.rglob("*.svg")) == {figure_path(rendered, *key) for key in EXPECTED}


@pytest.mark.parametrize(("lang", "name", "scheme"), EXPECTED)
def test_figure_is_valid_svg_without_a_date(rendered, lang, name, scheme):
    content = figure_path(rendered, lang, name, scheme).read_bytes()
    root = ET.fromstring(content)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert b"dc:date" not in content and b"dc:creator" not in content
    assert fonts.POSTSCRIPT_NAME.encode() not in content  # no label drawn as outlines of the figure font
    assert fonts.FAMILY.encode() not in content  # which no reader's system has: the labels name CSS_FAMILIES
    assert len(content) < 150_000


SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize(("lang", "name", "scheme"), EXPECTED)
def test_every_label_is_text_in_the_readers_fonts_fitted_to_matplotlibs_layout(rendered, lang, name, scheme):
    root = ET.fromstring(figure_path(rendered, lang, name, scheme).read_bytes())
    families = [group for group in root.iter(f"{SVG}g") if "font-family" in group.attrib]
    assert [group.get("font-family") for group in families] == [svg_text.FONT_FAMILY]
    labels, repertoire = list(families[0].iter(f"{SVG}text")), fonts.repertoire()
    assert labels and len(labels) == len(list(root.iter(f"{SVG}text")))
    for label in labels:
        assert label.text and label.text.strip(), f"{name}: an empty label"
        assert float(label.get("textLength", "0")) > 0, f"{name}: {label.text!r} without the width it was laid out at"
        assert label.get("lengthAdjust") == "spacingAndGlyphs"
        assert "font-family" not in label.get("style", "")
        assert all(ord(character) in repertoire for character in label.text), label.text


def test_the_font_families_end_in_the_generic_sans_serif():
    assert svg_text.CSS_FAMILIES[0] == fonts.FAMILY.removeprefix("QKV ")  # the font the labels are measured in
    assert svg_text.FONT_FAMILY.endswith(", sans-serif")


def test_second_call_is_cached_and_writes_nothing(rendered, project):
    docs = rendered
    before = {path: path.stat().st_mtime_ns for path in docs.rglob("*.svg")}
    assert render_all(docs, project) == []
    assert {path: path.stat().st_mtime_ns for path in docs.rglob("*.svg")} == before


def test_rendering_again_rewrites_nothing_and_drops_stale_files(tmp_path, project, monkeypatch):
    import qkv_site.figures.registry as registry

    name = next(iter(FIGURES))
    monkeypatch.setattr(registry, "FIGURES", {name: FIGURES[name]})  # one figure is enough to see what is kept
    assert len(render_all(tmp_path, project, ("zh",))) == len(SCHEMES)
    before = {path: path.read_bytes() for path in tmp_path.rglob("*.svg")}
    stale = tmp_path / "zh" / "figures" / "removed_figure.light.svg"
    stale.write_text("<svg/>")
    (tmp_path / "zh" / "figures" / STAMP).unlink()  # forces a full render
    assert render_all(tmp_path, project, ("zh",)) == []  # every file came out byte-identical, so none was rewritten
    assert not stale.exists()
    assert {path: path.read_bytes() for path in tmp_path.rglob("*.svg")} == before
    assert (tmp_path / "zh" / "figures" / STAMP).exists()


@pytest.mark.parametrize("name", FIGURES)
def test_languages_and_schemes_give_different_pictures(rendered, name):
    docs = rendered
    light = {lang: figure_path(docs, lang, name, "light").read_bytes() for lang in LANGUAGES}
    assert light["zh"] != light["en"]
    assert figure_path(docs, "zh", name, "dark").read_bytes() != light["zh"]


@pytest.mark.parametrize("label", ["Q \ue000", "$q$ 键\ue000", "\ue000\n键"])  # plain, with a formula, two lines
def test_a_missing_glyph_fails_the_render(project, label):
    def draw(theme: Theme, lang: str, project: Project) -> Figure:
        fig = Figure()
        fig.text(0.5, 0.5, label)  # U+E000, a private-use code point: no font has it
        return fig

    with pytest.raises(MissingGlyphError, match="missing"):
        render_svg(draw, "zh", "light", project)


def test_a_label_is_drawn_as_text_and_a_formula_as_outlines(project):
    def draw(theme: Theme, lang: str, project: Project) -> Figure:
        fig = Figure()
        fig.text(0.5, 0.5, "键 Key", ha="center")
        fig.text(0.5, 0.2, "维度 $d_k$ 的方差")
        return fig

    svg = render_svg(draw, "zh", "light", project).decode()
    labels = re.findall(r"<text [^>]*>[^<]*</text>", svg)
    assert [re.sub("<[^>]*>", "", label) for label in labels] == ["键 Key", "维度", "的方差"]
    assert "text-anchor: middle" in labels[0]
    assert "DejaVuSans-Oblique" in svg  # the d of d_k, an outline


def test_a_measurement_figure_draws_the_results_of_its_project(tmp_path: Path, project: Project) -> None:
    # The project of a configuration elsewhere: its results folder, with other numbers, gives another figure.
    results = tmp_path / "results"
    results.mkdir()
    memory = json.loads((project.results_dir / "attention_memory.json").read_text(encoding="utf-8"))
    for row in memory["results"]:
        row["tiled_peak_bytes"] *= 2
    (results / "attention_memory.json").write_text(json.dumps(memory), encoding="utf-8")
    elsewhere = dataclasses.replace(project, results_dir=results)
    draw = FIGURES["tiled_memory"]
    assert render_svg(draw, "en", "light", elsewhere) != render_svg(draw, "en", "light", project)
    (results / "attention_memory.json").unlink()
    with pytest.raises(FileNotFoundError, match=f"{re.escape(str(results))}/attention_memory.json is missing"):
        render_svg(draw, "en", "light", elsewhere)


def _outline(font: TTFont, character: str) -> list[str]:
    pen = RecordingPen()
    font.getGlyphSet()[font.getBestCmap()[ord(character)]].draw(pen)
    return [operator for operator, _ in pen.value]


def test_figure_font_has_the_simplified_chinese_glyph_forms():
    # 门 and 骨 are drawn differently in Japanese and in simplified Chinese; pinning the weight
    # moves points but keeps each glyph's outline structure, so it tells the faces apart.
    source = TTCollection(str(fonts.SOURCE_FONT), lazy=True)
    japanese, simplified = source.fonts[0], source.fonts[fonts.SC_FACE]
    figure_font = TTFont(str(fonts.static_font()), lazy=True)
    for character in "门骨":
        assert _outline(figure_font, character) == _outline(simplified, character)
        assert _outline(figure_font, character) != _outline(japanese, character)


def test_every_label_exists_in_every_language_of_the_site():
    for figure, entries in LABELS.items():
        for key, translations in entries.items():
            assert set(translations) == set(LANGUAGES), (figure, key)
            assert all(translations.values()), (figure, key)


def test_a_language_the_labels_are_not_written_in_is_named() -> None:
    with pytest.raises(ValueError, match="the labels of figure 'worked_weights' are not written in 'fr'"):
        text("worked_weights", "fr")


@pytest.mark.parametrize("name", FIGURES)
def test_each_figure_is_drawn_by_the_module_of_its_name(name: str) -> None:
    # qkv_site.builder.figures links each caption to qkv_site/figures/<name>.py without importing the registry.
    assert FIGURES[name].__module__ == f"qkv_site.figures.{name}"


def test_a_site_draws_the_figures_of_the_languages_it_has_pages_in(tmp_path: Path, project: Project) -> None:
    from qkv_site.builder.figures import draw, drawn_languages

    assert drawn_languages(project) == LANGUAGES  # the site: docs/zh and docs/en
    (tmp_path / "docs").mkdir()
    small = dataclasses.replace(project, docs_dir=tmp_path / "docs")  # a site of pages without language folders
    assert drawn_languages(small) == ()
    draw(tmp_path / "figures", small)
    assert not list((tmp_path / "figures").rglob("*.svg"))
    (tmp_path / "docs" / "en").mkdir()
    assert drawn_languages(small) == ("en",)


def _figure(lang: str, figures: Path, project: Project, body: str = "Caption.") -> str:
    """What a page's ``{% call figure("worked_weights", alt="…") %}body{% endcall %}`` writes."""
    from qkv_site.builder.figures import figure_macro

    figure = figure_macro(lang, None, project, figures)
    return str(figure("worked_weights", alt="A heatmap", caller=lambda: body))


def test_a_figure_shows_both_schemes_sized_as_drawn_with_its_code_link_and_folded_code(rendered, project) -> None:
    root = rendered
    svg = ET.parse(root / "en" / "figures" / "worked_weights.dark.svg").getroot()
    width, height = (round(float(svg.get(side, "").removesuffix("pt")) * 4 / 3) for side in ("width", "height"))  # 1 pt = 4/3 px
    markup = _figure("en", root / "en" / "figures", project)
    for scheme in ("light", "dark"):
        image = f"![A heatmap](figures/worked_weights.{scheme}.svg#only-{scheme}){{ loading=lazy width={width} height={height} }}"
        assert image in markup
    assert '<figcaption markdown>Caption. <a class="figure-source" href="#figure-code-worked-weights">Figure code</a></figcaption>' in markup
    assert markup.index("</figure>") < markup.index('<details class="example figure-code" id="figure-code-worked-weights"')
    assert "def " in markup.split("</figure>", 1)[1]  # the module's code, folded under the figure
    chinese = _figure("zh", root / "zh" / "figures", project, body="热力图。")
    assert '热力图。<a class="figure-source"' in chinese  # no space after a full-width full stop


def test_a_figure_shown_twice_on_a_page_has_its_code_once(rendered, project) -> None:
    from qkv_site.builder.figures import figure_macro

    root = rendered
    figure = figure_macro("en", None, project, root / "en" / "figures")
    first, second = (figure("worked_weights", alt="A heatmap", caller=lambda: "Caption.") for _ in range(2))
    assert "<details" in first and "<details" not in second and "figure-source" in second


def test_a_figure_call_that_cannot_be_shown_fails_the_build_naming_it(tmp_path: Path, project: Project) -> None:
    from qkv_site.builder.figures import figure_macro

    figure = figure_macro("en", None, project, tmp_path)
    with pytest.raises(FileNotFoundError, match=r"worked_weights\.light\.svg, which was not drawn"):
        figure("worked_weights", alt="A heatmap", caller=lambda: "Caption.")
    (tmp_path / "worked_weights.light.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"></svg>')
    with pytest.raises(ValueError, match=r"worked_weights\.light\.svg: no width and height"):
        figure("worked_weights", alt="A heatmap", caller=lambda: "Caption.")
    with pytest.raises(ValueError, match="no_such_figure"):
        figure("no_such_figure", alt="A heatmap", caller=lambda: "Caption.")
    with pytest.raises(ValueError, match=r"the alt text must be one line"):
        figure("worked_weights", alt="A [heatmap]", caller=lambda: "Caption.")
    with pytest.raises(ValueError, match="the caption is empty"):
        figure("worked_weights", alt="A heatmap", caller=lambda: "  ")
    with pytest.raises(ValueError, match=r"call figure"):
        figure("worked_weights", alt="A heatmap")
    with pytest.raises(ValueError, match="not 'fr'"):
        figure_macro("fr", None, project, tmp_path)
