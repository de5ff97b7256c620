"""Named values in a page's prose (qkv_site.builder.page_values): filled in from qkv_site.pages.<name>,
and a misspelt name, a failing computation or a broken template stops the build naming the page; a sentence
the data no longer support raises, naming the page and the sentence (qkv_site.values.claims)."""

from __future__ import annotations

import sys
import textwrap
import types
from pathlib import Path

import numpy as np
import pytest
from build_support import build_site
from mkdocs.exceptions import PluginError
from repository import DOCS, LANGUAGES

from qkv_site.builder import page_values
from qkv_site.builder.page_values import render
from qkv_site.project import Project
from qkv_site.site_map import NavEntry
from qkv_site.site_nav import SiteNav
from qkv_site.values.claims import ClaimError, Claims


@pytest.fixture
def values_module(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = types.ModuleType("qkv_site.pages.example")
    module.values = lambda project: {"n": "4,096", "rows": [{"n": "1", "share": "50%"}, {"n": "2", "share": "25%"}]}  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "qkv_site.pages.example", module)
    return module


def test_values_and_rows_are_filled_in(project: Project, values_module: types.ModuleType) -> None:
    page = textwrap.dedent("""\
        At $n = {{ n }}$:

        | n | share |
        | -: | -: |
        {% for row in rows %}
        | {{ row.n }} | {{ row.share }} |
        {% endfor %}
        """)
    assert render(page, {"values": "example"}, "zh/a.md", project) == "At $n = 4,096$:\n\n| n | share |\n| -: | -: |\n| 1 | 50% |\n| 2 | 25% |\n"


def test_a_page_that_asks_for_no_values_is_left_alone(project: Project) -> None:
    tex = "$e^{{x}}$ and {% not jinja %} {{ neither }}"
    assert render(tex, {}, "zh/a.md", project) == tex


def test_a_misspelt_name_stops_the_build_naming_the_page(project: Project, values_module: types.ModuleType) -> None:
    with pytest.raises(PluginError, match=r"zh/a\.md: .*'nn' is undefined"):
        render("n = {{ nn }}", {"values": "example"}, "zh/a.md", project)


def test_a_failing_computation_stops_the_build_naming_the_page(project: Project, values_module: types.ModuleType) -> None:
    values_module.values = lambda project: 1 / 0  # type: ignore[attr-defined]
    with pytest.raises(PluginError, match=r"en/a\.md: its values \(qkv_site\.pages\.example\) failed: ZeroDivisionError"):
        render("{{ n }}", {"values": "example"}, "en/a.md", project)


def test_a_broken_template_names_the_page_and_line(project: Project, values_module: types.ModuleType) -> None:
    with pytest.raises(PluginError, match=r"zh/a\.md, line 2: "):
        render("fine\n{% for row in rows %}never closed\n", {"values": "example"}, "zh/a.md", project)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_page_source_prints_output_from_inside_a_python_string(lang: str) -> None:
    # A page that asks for values keeps its words in Markdown: no print(f"…") with prose in it.
    for page in sorted((DOCS / lang).glob("*.md")):
        text = page.read_text(encoding="utf-8")
        if text.startswith("---\nvalues:"):
            assert 'exec="on"' not in text or "--8<--" in text, page.name
            assert "print(" not in text, f"{page.name}: a page with named values prints no prose from Python"


@pytest.mark.build
def test_a_strict_build_fails_on_a_misspelt_value(tmp_path: Path, project: Project) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("---\nvalues: complexity\n---\n\n# Cost\n\nFrom {{ crossover }} on, {{ no_such_value }}.\n", encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text(f"site_name: values\nstrict: true\nplugins:\n  - qkv-site:\n      results_dir: {project.results_dir}\n",
                      encoding="utf-8")
    result = build_site(tmp_path / "site", config)
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "index.md" in output and "no_such_value" in output, output[-3000:]


def test_values_are_kept_between_builds_unless_they_read_the_pages(project: Project, values_module: types.ModuleType, tmp_path: Path) -> None:
    calls: list[int] = []

    def counted(project: Project) -> dict[str, str]:
        calls.append(1)
        return {"n": str(len(calls))}

    values_module.values = counted  # type: ignore[attr-defined]
    assert render("{{ n }}", {"values": "example"}, "zh/a.md", project, tmp_path) == "1"
    assert render("{{ n }}", {"values": "example"}, "zh/a.md", project, tmp_path) == "1"  # read from the cache
    values_module.KEPT_BETWEEN_BUILDS = False  # type: ignore[attr-defined]  # e.g. the home page (its downloads' own cache)
    assert render("{{ n }}", {"values": "example"}, "zh/a.md", project, tmp_path) == "2"
    assert render("{{ n }}", {"values": "example"}, "zh/a.md", project, tmp_path) == "3"


def _nav(lang: str, glossary: str) -> SiteNav:
    return SiteNav(lang, (NavEntry("glossary.md", {lang: "Glossary"}, {lang: None}),), {"glossary.md": glossary})


def test_a_page_that_takes_the_nav_is_handed_the_one_of_its_build(project: Project, values_module: types.ModuleType) -> None:
    values_module.TAKES_NAV = True  # type: ignore[attr-defined]
    values_module.values = lambda project, nav: {"first": nav.entries[0].titles[nav.lang]}  # type: ignore[attr-defined]
    assert render("{{ first }}", {"values": "example"}, "en/a.md", project, nav=_nav("en", "# Glossary\n")) == "Glossary"
    with pytest.raises(PluginError, match=r"en/a\.md: .*the nav of the language being built, and none was given"):
        render("{{ first }}", {"values": "example"}, "en/a.md", project)


def test_values_from_the_nav_are_kept_until_the_nav_or_a_page_s_text_changes(project: Project, values_module: types.ModuleType,
                                                                           tmp_path: Path) -> None:
    calls: list[str] = []

    def counted(project: Project, nav: SiteNav) -> dict[str, str]:
        calls.append(nav.lang)
        return {"n": str(len(calls))}

    values_module.TAKES_NAV = True  # type: ignore[attr-defined]
    values_module.values = counted  # type: ignore[attr-defined]

    def build(nav: SiteNav) -> str:
        return render("{{ n }}", {"values": "example"}, f"{nav.lang}/a.md", project, tmp_path, nav=nav)

    assert build(_nav("zh", "# 术语表\n")) == build(_nav("zh", "# 术语表\n")) == "1"  # the second read from the cache
    assert build(_nav("en", "# Glossary\n")) == "2"  # the other language's nav: its own values
    assert build(_nav("zh", "# 术语表\n\n新的一段。\n")) == "3"  # a page's text changed
    assert build(_nav("en", "# Glossary\n")) == "2"  # the English values are still kept
    assert sorted(path.name.split(".")[1] for path in tmp_path.rglob("example.*.pickle")) == ["en", "zh"]


def test_every_page_s_values_are_computed_from_the_project_it_is_given(values_module: types.ModuleType, project: Project,
                                                                       tmp_path: Path) -> None:
    values_module.values = lambda given: {"docs": given.docs_dir.name}  # type: ignore[attr-defined]
    other = Project(config_file=tmp_path / "mkdocs.yml", docs_dir=tmp_path / "pages", results_dir=tmp_path,
                    src_dir=tmp_path)
    assert render("{{ docs }}", {"values": "example"}, "zh/a.md", project) == "docs"
    assert render("{{ docs }}", {"values": "example"}, "zh/a.md", other) == "pages"


# The claims helper (qkv_site.values.claims) ------------------------------------------------------


def test_a_claim_the_data_do_not_support_raises_naming_the_page_and_the_sentence() -> None:
    claims = Claims("p.md")
    claims.require(2 > 1, sentence="Faster.")  # holds: nothing happens
    with pytest.raises(ClaimError, match="p.md: the data no longer support the sentence: Faster.; checked: 2 < 1"):
        claims.require(2 < 1, sentence="Faster.", checked="2 < 1")
    with pytest.raises(TypeError, match="must be a bool"):
        claims.require(np.array([True, False]), sentence="True.")  # an array's truth is not a condition


def test_a_page_compiled_once_is_not_compiled_again_until_its_text_changes(
        project: Project, values_module: types.ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = "n = {{ n }}\n"
    assert render(page, {"values": "example"}, "zh/a.md", project, templates=tmp_path) == "n = 4,096\n"
    compiled: list[str] = []
    compile_page = page_values._environment.compile

    def counted(source: str, name: str) -> object:
        compiled.append(name)
        return compile_page(source, name)

    monkeypatch.setattr(page_values._environment, "compile", counted)
    assert render(page, {"values": "example"}, "zh/a.md", project, templates=tmp_path) == "n = 4,096\n"
    assert compiled == []  # read from the kept bytecode
    assert render("n is {{ n }}\n", {"values": "example"}, "zh/a.md", project, templates=tmp_path) == "n is 4,096\n"
    assert len(compiled) == 1 and len(list(tmp_path.iterdir())) == 1  # the page's one entry, replaced
    with pytest.raises(PluginError, match=r"zh/a\.md, line 2: "):  # a broken template still names the page and line
        render("fine\n{% for row in rows %}never closed\n", {"values": "example"}, "zh/a.md", project, templates=tmp_path)
