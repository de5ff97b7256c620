"""The page “勘误与编者注 / Corrections and editor's notes”: it lists every editor's note of the site, each entry
links to an existing anchor, and it lists the notes the pages carry now, from the nav and the pages' texts the build
hands it (no file read): a note added to another page appears at the next build, cached or not, and in the same
`mkdocs serve`."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest
from bs4 import BeautifulSoup
from repository import DOCS, LANGUAGES, ROOT
from site_pages import built_path, nav_sources, page_url, parsed_page, rendered

from qkv_site.editors_notes import NOTE_PREFIX, editors_notes, notes_of_page
from qkv_site.pages import corrections
from qkv_site.project import Project
from qkv_site.site_map import NavEntry
from qkv_site.site_nav import SiteNav, read_nav

CONFIG = ROOT / "mkdocs.yml"


def article_of(site: Path, source: str, lang: str) -> BeautifulSoup:
    return parsed_page(built_path(site, source, lang)).select_one("article")


def notes_on_the_built_site(site: Path, lang: str) -> set[tuple[str, str]]:
    """(page URL, anchor) of every editor's-note admonition a reader sees, each checked to have its anchor."""
    found = set()
    for source in nav_sources():
        for title in article_of(site, source, lang).select(".admonition-title"):
            if not title.get_text().startswith(NOTE_PREFIX[lang]):
                continue
            admonition = title.parent
            anchor = admonition.find_previous_sibling()
            anchor = anchor.select_one('a[id^="note-"]') if anchor else None
            assert anchor is not None, f"{lang}/{source}: the editor's note {title.get_text()!r} has no anchor just before it"
            found.add((page_url(source, lang), anchor["id"]))
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_editors_note_is_listed_and_every_entry_links_to_its_anchor(site: Path, lang: str) -> None:
    on_site = notes_on_the_built_site(site, lang)
    assert len(on_site) >= 3, f"{lang}: the step numbering, the units and W_K/W_V each carry a note; found {on_site}"
    base = page_url("corrections.md", lang)
    table = article_of(site, "corrections.md", lang).select_one("table")
    listed = set()
    for row in table.select("tbody tr"):
        target = urlparse(urljoin(base, row.select_one("td a")["href"]))
        listed.add((target.path, target.fragment))
        source = next(s for s in nav_sources() if page_url(s, lang) == target.path)
        assert article_of(site, source, lang).find(id=target.fragment), f"{lang}: {target.path}#{target.fragment} does not exist"
    assert listed == on_site, f"{lang}: listed but not on the site {listed - on_site}; on the site but not listed {on_site - listed}"


def test_both_languages_have_the_same_notes_with_the_same_anchors() -> None:
    zh, en = ([(note.page, note.anchor) for note in editors_notes(read_nav(CONFIG, DOCS, lang))] for lang in LANGUAGES)
    assert zh == en


def test_a_note_without_its_anchor_or_an_anchor_without_its_note_stops_the_build() -> None:
    with pytest.raises(ValueError, match="has no <a id"):
        notes_of_page('# 页 { #p }\n\n!!! note "编者注：单位"\n\n    正文。\n', "p.md", "zh")
    with pytest.raises(ValueError, match="not followed by an editor's note"):
        notes_of_page('# 页 { #p }\n\n<a id="note-units"></a>\n\n正文。\n', "p.md", "zh")
    with pytest.raises(ValueError, match="titles its editor's note"):
        notes_of_page('# Page { #p }\n\n<a id="note-units"></a>\n\n!!! note "编者注：单位"\n', "p.md", "en")


# The notes the pages carry now, from what the build hands over, cached or not -------------------------


def _nowhere(folder: Path) -> Project:
    """A project whose configuration and pages do not exist: values computed for it read no file of either."""
    return Project(config_file=folder / "missing" / "mkdocs.yml", docs_dir=folder / "missing" / "docs",
                   results_dir=ROOT / "benchmarks" / "results", src_dir=ROOT / "src", languages=("zh", "en"))


def _nav(lang: str, pages: dict[str, str]) -> SiteNav:
    """A nav of ``pages`` ({source: text}), each titled by its file, with the four added pages (no text) at its end."""
    added = ("notebook.ipynb", "playground.md", "learned-attention.md", "beyond-quadratic.md")
    entries = tuple(NavEntry(source, {lang: source}, {lang: None}) for source in (*pages, *added))
    return SiteNav(lang, entries, {**pages, **{source: "# Added\n" for source in added if source.endswith(".md")}})


NOTED = {"cost.md": '# Cost { #cost }\n\n<a id="note-units"></a>\n\n!!! note "编者注：单位"\n\n    MiB。\n',
         "steps.md": '# Steps\n\n<a id="note-steps"></a>\n\n!!! note "编者注：步骤"\n\n    五步。\n'}


def test_the_values_are_the_notes_of_the_nav_the_build_hands_over_in_its_order(tmp_path: Path) -> None:
    found = corrections.values(_nowhere(tmp_path), _nav("zh", {"steps.md": NOTED["steps.md"], "cost.md": NOTED["cost.md"]}))
    assert [(note.page, note.anchor, note.title, note.page_title) for note in found["notes"]["zh"]] == [
        ("steps.md", "note-steps", "步骤", "Steps"), ("cost.md", "note-units", "单位", "Cost")]
    assert found["additions"] == ["notebook.ipynb", "playground.md", "learned-attention.md", "beyond-quadratic.md"]


def test_pages_without_notes_stop_the_list(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no editor's note found in the zh pages"):
        corrections.values(_nowhere(tmp_path), _nav("zh", {"index.md": "# Home\n"}))


def test_a_note_added_to_another_page_is_listed_at_the_next_build_whatever_the_cache_holds(tmp_path: Path) -> None:
    from qkv_site.builder.page_values import render

    project, cache = _nowhere(tmp_path), tmp_path / "page-values"
    table = "{% for note in notes.zh %}{{ note.page }}#{{ note.anchor }} {% endfor %}"

    def build(pages: dict[str, str]) -> str:
        return render(table, {"values": "corrections"}, "zh/corrections.md", project, cache, nav=_nav("zh", pages))

    assert build(NOTED) == build(NOTED) == "cost.md#note-units steps.md#note-steps "
    assert len(list(cache.rglob("corrections.zh.*.pickle"))) == 1  # kept, and read by the second build
    glossary = '# Glossary\n\n<a id="note-new"></a>\n\n!!! note "编者注：新的一条"\n\n    正文。\n'
    assert build({**NOTED, "glossary.md": glossary}) == "cost.md#note-units steps.md#note-steps glossary.md#note-new "
    assert len(list(cache.rglob("corrections.zh.*.pickle"))) == 1  # the earlier nav's values are gone


def test_the_plugin_lists_the_notes_of_the_nav_mkdocs_loaded_and_reads_no_file(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from mkdocs.structure.files import File
    from mkdocs.structure.nav import Navigation, Section
    from mkdocs.structure.pages import Page

    from qkv_site.builder.plugin import SitePlugin

    def loaded(pages: dict[str, str]) -> Navigation:
        """The nav MkDocs would load: its files held in memory, so any read of the disk would fail."""
        items = []
        for source, text in pages.items():
            file = File(f"zh/{source}", src_dir=None, dest_dir=str(tmp_path / "site"), use_directory_urls=True)
            file.content_string = text
            items.append(Page(source, file, {}))
        return Navigation([Section("正文", items)], items)

    plugin = SitePlugin()
    plugin.project = _nowhere(tmp_path)  # as on_config makes it; neither its mkdocs.yml nor its pages exist
    plugin.cache = tmp_path / ".cache"
    plugin.runner = SimpleNamespace(start_page=lambda src_uri: None)  # the page has no code block to run or cache
    source = (DOCS / "zh" / "corrections.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    page = SimpleNamespace(meta={"values": "corrections"}, file=SimpleNamespace(src_uri="zh/corrections.md"), url="corrections/")
    config = {"docs_dir": str(tmp_path / "missing" / "docs"), "repo_url": None, "repo_name": None}
    added = {source: "# Added\n" for source in ("notebook.ipynb", "playground.md", "learned-attention.md", "beyond-quadratic.md")}

    def build(pages: dict[str, str]) -> str:
        plugin.on_nav(loaded({**pages, **added}), config=config, files=None)  # type: ignore[arg-type]
        return plugin.on_page_markdown(source, page=page, config=config, files=None)  # type: ignore[arg-type]

    first = build(NOTED)
    assert "| [单位](cost.md#note-units) | [Cost](cost.md) |\n| [步骤](steps.md#note-steps) | [Steps](steps.md) |" in first
    assert "note-new" not in first
    glossary = '# 术语表\n\n<a id="note-new"></a>\n\n!!! note "编者注：一条新的"\n\n    正文。\n'
    assert "| [一条新的](glossary.md#note-new) | [术语表](glossary.md) |" in build({**NOTED, "glossary.md": glossary})


ADDED_PAGES = ("learned-attention.md", "beyond-quadratic.md", "notebook.ipynb", "playground.md")  # not in the article
ILLUSTRATIVE_EXAMPLES = ("cat_sat_on_mat", "translation_example", "it_animal_sentence")  # hand-built weights
SAYS_ILLUSTRATIVE = {"zh": "示意", "en": "illustrative"}


def _section(text: str, anchor: str) -> str:
    start = text.index(f"{{ #{anchor} }}")
    end = text.find("\n## ", start)
    return text[start:] if end < 0 else text[start:end]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_additions_name_every_page_the_article_does_not_have(lang: str, project: Project) -> None:
    from site_pages import rendered

    from qkv_site.editors_notes import ADDED_PAGES as LISTED

    assert set(LISTED) == set(ADDED_PAGES)
    additions = _section(rendered("corrections.md", lang, project), "additions")
    assert [page for page in ADDED_PAGES if f"]({page})" not in additions] == []


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_home_page_names_as_additions_the_pages_the_corrections_page_lists(lang: str, project: Project,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from site_pages import rendered

    from qkv_site import editors_notes as content

    def lead() -> str:
        text = rendered("index.md", lang, project)
        start = text.index("{ #reading-path }")
        return text[start:text.index("\n|", start)]

    def linked(text: str) -> list[str]:
        return [page for page in ("notebook.ipynb", "playground.md", "learned-attention.md", "beyond-quadratic.md",
                                  "why-three-matrices.md") if f"]({page})" in text]

    assert linked(lead()) == ["notebook.ipynb", "playground.md", "learned-attention.md", "beyond-quadratic.md"]
    monkeypatch.setattr(content, "ADDED_PAGES", frozenset({"playground.md", "why-three-matrices.md"}))
    assert linked(lead()) == ["playground.md", "why-three-matrices.md"]
    with pytest.raises(Exception, match="why-three-matrices"):  # the corrections page has no words for it: the build stops
        rendered("corrections.md", lang, project)


@pytest.mark.parametrize(("lang", "rewritten"), [("zh", ("显存表格", "流程图的步骤编号")),
                                                 ("en", ("memory table", "five-step flowchart"))])
def test_the_list_of_rewritten_places_names_the_memory_table_and_the_flowchart(lang: str, rewritten: tuple[str, ...]) -> None:
    intro = _section((DOCS / lang / "corrections.md").read_text(encoding="utf-8"), "corrections")
    assert [words for words in rewritten if words not in intro] == []


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_figure_drawn_from_hand_built_weights_says_so_in_its_caption(lang: str) -> None:
    import re

    figures = ROOT / "src" / "qkv_site" / "figures"
    hand_built = [module.stem for module in sorted(figures.glob("*.py"))
                  if module.stem not in ("labels", "registry") and any(name in module.read_text(encoding="utf-8")
                                                                        for name in ILLUSTRATIVE_EXAMPLES)]
    assert {"asymmetry", "self_vs_cross", "it_animal"} <= set(hand_built)
    silent = []
    for page in sorted((DOCS / lang).glob("*.md")):
        for shown, caption in re.findall(r'\{% call figure\("(\w+)".*?%\}(.*?)\{% endcall %\}', page.read_text(encoding="utf-8"), flags=re.S):
            if shown in hand_built and SAYS_ILLUSTRATIVE[lang] not in caption.lower():
                silent.append((page.name, shown))
    assert silent == []


# The rows link every note -------------------------------------------------------------------------


def test_corrections_rows_link_every_note_the_pages_carry(project: Project) -> None:
    for lang in LANGUAGES:
        notes = editors_notes(read_nav(CONFIG, DOCS, lang))
        links = re.findall(r"^\| \[[^\]]+\]\(([\w.-]+\.md#note-[\w-]+)\) \| \[[^\]]+\]\([\w.-]+\.md\) \|$",
                           rendered("corrections.md", lang, project), re.MULTILINE)
        assert links == [f"{note.page}#{note.anchor}" for note in notes], lang
        for note in notes:  # each link's anchor sits on its page
            assert f'<a id="{note.anchor}"></a>' in (DOCS / lang / note.page).read_text(encoding="utf-8")
