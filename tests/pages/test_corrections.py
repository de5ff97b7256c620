"""The page “勘误与编者注 / Corrections and editor's notes”: it lists every editor's note of the site, each entry
links to an existing anchor, and it lists the notes the pages carry now: a note added to another page appears at the
next build, cached or not, and in the same `mkdocs serve`."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest
from bs4 import BeautifulSoup
from repository import DOCS, LANGUAGES, ROOT
from site_pages import built_path, nav_sources, page_url, parsed_page, rendered

from qkv_site.editors_notes import NOTE_PREFIX, editors_notes, notes_of_page
from qkv_site.pages import corrections
from qkv_site.project import Project, load_project


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
    zh, en = ([(note.page, note.anchor) for note in editors_notes(lang, DOCS, ROOT / "mkdocs.yml")] for lang in LANGUAGES)
    assert zh == en


def test_a_note_without_its_anchor_or_an_anchor_without_its_note_stops_the_build() -> None:
    with pytest.raises(ValueError, match="has no <a id"):
        notes_of_page('# 页 { #p }\n\n!!! note "编者注：单位"\n\n    正文。\n', "p.md", "zh")
    with pytest.raises(ValueError, match="not followed by an editor's note"):
        notes_of_page('# 页 { #p }\n\n<a id="note-units"></a>\n\n正文。\n', "p.md", "zh")
    with pytest.raises(ValueError, match="titles its editor's note"):
        notes_of_page('# Page { #p }\n\n<a id="note-units"></a>\n\n!!! note "编者注：单位"\n', "p.md", "en")


# The notes the pages carry now, cached or not, and under mkdocs serve -----------------------------


def _copy_of_the_project(folder: Path) -> Project:
    """The pages and the configuration, copied into ``folder``, loaded as the build there would."""
    shutil.copytree(DOCS, folder / "docs", ignore=shutil.ignore_patterns("*.ipynb", "figures"))
    for checked in ("overrides", "docs_src"):  # the theme's custom_dir and a watched folder: the configuration checks them
        shutil.copytree(ROOT / checked, folder / checked)
    shutil.copy(ROOT / "mkdocs.yml", folder / "mkdocs.yml")
    return load_project(folder / "mkdocs.yml")


def test_a_new_note_on_another_page_appears_in_the_list_without_a_fresh_process(tmp_path: Path) -> None:
    project = _copy_of_the_project(tmp_path)  # read from the copy's pages, wherever the process runs
    before = corrections.values(project)["notes"]
    for lang, title in (("zh", "编者注：新的一条"), ("en", "Editor's note: a new one")):
        page = tmp_path / "docs" / lang / "glossary.md"
        page.write_text(page.read_text(encoding="utf-8") + f'\n<a id="note-new"></a>\n\n!!! note "{title}"\n\n    Text.\n',
                        encoding="utf-8")
    after = corrections.values(project)["notes"]  # the same process, as `mkdocs serve` rebuilds
    for lang in ("zh", "en"):
        new = [note for note in after[lang] if note not in before[lang]]
        assert [(note.page, note.anchor) for note in new] == [("glossary.md", "note-new")], lang


def test_pages_without_notes_stop_the_list(tmp_path: Path) -> None:
    (tmp_path / "docs" / "zh").mkdir(parents=True)
    (tmp_path / "docs" / "zh" / "index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: notes\nnav:\n  - index.md\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no editor's note found"):
        corrections.notes("zh", load_project(tmp_path / "mkdocs.yml"))


def test_the_plugin_renders_the_list_at_every_build_whatever_its_block_cache_holds(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from qkv_site.builder.plugin import SitePlugin

    plugin = SitePlugin()
    plugin.project = _copy_of_the_project(tmp_path)  # as on_config makes it from the copy's configuration
    plugin.cache = tmp_path / ".cache"
    plugin.runner = SimpleNamespace(start_page=lambda src_uri: None)  # the page has no code block to run or cache
    source = (tmp_path / "docs" / "zh" / "corrections.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    page = SimpleNamespace(meta={"values": "corrections"}, file=SimpleNamespace(src_uri="zh/corrections.md"), url="corrections/")

    def build() -> str:
        return plugin.on_page_markdown(source, page=page, config={"docs_dir": str(tmp_path / "docs"), "repo_url": None, "repo_name": None}, files=None)

    assert "note-new" not in build()
    glossary = tmp_path / "docs" / "zh" / "glossary.md"
    note = '\n<a id="note-new"></a>\n\n!!! note "编者注：一条新的"\n\n    正文。\n'
    glossary.write_text(glossary.read_text(encoding="utf-8") + note, encoding="utf-8")
    assert "| [一条新的](glossary.md#note-new) | [术语表](glossary.md) |" in build()


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
    from qkv_site.editors_notes import editors_notes

    for lang in LANGUAGES:
        notes = editors_notes(lang, DOCS, ROOT / "mkdocs.yml")
        links = re.findall(r"^\| \[[^\]]+\]\(([\w.-]+\.md#note-[\w-]+)\) \| \[[^\]]+\]\([\w.-]+\.md\) \|$",
                           rendered("corrections.md", lang, project), re.MULTILINE)
        assert links == [f"{note.page}#{note.anchor}" for note in notes], lang
        for note in notes:  # each link's anchor sits on its page
            assert f'<a id="{note.anchor}"></a>' in (DOCS / lang / note.page).read_text(encoding="utf-8")
