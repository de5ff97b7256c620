"""Translation records: the English pages follow the current Chinese pages, and an edit to a Chinese page shows."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from repository import DOCS, ROOT

from qkv_site.markdown_source import parse
from qkv_site.translations.notice import NOTICE_CLASS, with_notice
from qkv_site.translations.records import file_status, page_status, record, section_hashes, split_front_matter

CHECK = [sys.executable, "-m", "qkv_site.translations"]


def run(*args: str, docs: Path | None = None) -> subprocess.CompletedProcess[str]:
    extra = ["--docs", str(docs)] if docs else []
    return subprocess.run([*CHECK, *extra, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def copy_of_the_pages(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    for lang in ("zh", "en"):
        (docs / lang).mkdir(parents=True)
        for page in [*(DOCS / lang).glob("*.md"), *(DOCS / lang).glob("*.ipynb")]:
            shutil.copy(page, docs / lang / page.name)
    return docs


def with_an_edited_paragraph(text: str, section: str) -> str:
    """``text`` with a few words appended to the first paragraph of prose in its ``section``."""
    source = parse(text)
    start = next(heading.line for heading in source.headings if heading.anchor == section)
    lines = source.lines
    target = next(line - 1 for line in source.paragraph_lines if line > start and not lines[line - 1].lstrip().startswith("$$"))
    lines[target] += "这句话是新加的。"
    return "\n".join(lines)


def edit_a_paragraph(page: Path, section: str) -> None:
    """Append a few words to the first paragraph of prose in ``section`` of a page."""
    page.write_text(with_an_edited_paragraph(page.read_text(encoding="utf-8"), section), encoding="utf-8")


def test_every_english_page_translates_its_current_chinese_page() -> None:
    result = run()
    assert result.returncode == 0, f"English pages behind their Chinese source:\n{result.stdout}{result.stderr}"
    assert re.search(r"all \d+ en pages translate the current zh pages", result.stdout)


def test_an_edit_to_a_chinese_paragraph_makes_the_check_fail(tmp_path: Path) -> None:
    docs = copy_of_the_pages(tmp_path)
    english = (docs / "en" / "worked-example.md").read_text(encoding="utf-8")
    edit_a_paragraph(docs / "zh" / "worked-example.md", "step-4")

    failed = run(docs=docs)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    problems = [line for line in failed.stdout.splitlines() if line.startswith("en/")]
    assert problems == ["en/worked-example.md: section #step-4 changed in zh/worked-example.md"], failed.stdout

    updated = run("--update", "worked-example.md", docs=docs)
    assert updated.returncode == 0 and "en/worked-example.md: recorded" in updated.stdout, updated.stdout + updated.stderr
    assert run(docs=docs).returncode == 0
    after = (docs / "en" / "worked-example.md").read_text(encoding="utf-8")
    assert split_front_matter(after)[1].strip() == split_front_matter(english)[1].strip(), "--update changed more than the front matter"


def test_an_edit_to_a_chinese_notebook_makes_the_check_fail(tmp_path: Path) -> None:
    docs = copy_of_the_pages(tmp_path)
    path = docs / "zh" / "notebook.ipynb"
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cell = next(c for c in notebook["cells"] if c["cell_type"] == "code")  # the first code cell: in the first section
    cell["source"] = [*cell["source"], "\nprint(example.d_k)"]
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False), encoding="utf-8")
    failed = run(docs=docs)
    problems = [line for line in failed.stdout.splitlines() if line.startswith("en/")]
    assert failed.returncode == 1 and problems == ["en/notebook.ipynb: section #hands-on changed in zh/notebook.ipynb"], failed.stdout
    assert run("--update", "notebook.ipynb", docs=docs).returncode == 0 and run(docs=docs).returncode == 0


def test_new_removed_and_unrecorded_sections_are_reported(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "zh").mkdir(parents=True)
    (docs / "en").mkdir()
    (docs / "zh" / "a.md").write_text("# 甲 { #a }\n\n一。\n\n## 乙 { #b }\n\n二。\n", encoding="utf-8")
    (docs / "en" / "a.md").write_text("# A { #a }\n\nOne.\n\n## B { #b }\n\nTwo.\n", encoding="utf-8")
    assert file_status(docs, "a.md").unrecorded
    assert record(docs, "a.md") and not record(docs, "a.md")  # the second time there is nothing to write
    assert not file_status(docs, "a.md").outdated
    (docs / "zh" / "a.md").write_text("# 甲 { #a }\n\n一。  \n\n## 丙 { #c }\n\n三。\n", encoding="utf-8")
    status = file_status(docs, "a.md")
    assert (status.changed, status.added, status.removed) == ((), ("c",), ("b",))  # trailing spaces are no change
    assert status.report() == ["en/a.md: section #c is new in zh/a.md", "en/a.md: section #b was removed from zh/a.md"]
    assert file_status(docs, "missing.md").missing


def test_the_build_and_the_command_line_compare_the_same_way(tmp_path: Path) -> None:
    # The command line reads the two files; the build hands page_status the texts it read itself.
    docs = copy_of_the_pages(tmp_path)
    edit_a_paragraph(docs / "zh" / "worked-example.md", "step-4")
    chinese = (docs / "zh" / "worked-example.md").read_text(encoding="utf-8")
    meta, _ = split_front_matter((docs / "en" / "worked-example.md").read_text(encoding="utf-8"))
    from_texts = page_status("worked-example.md", chinese, meta["translation"])
    assert from_texts == file_status(docs, "worked-example.md") and from_texts.changed == ("step-4",)


def test_headings_in_code_blocks_and_duplicate_ids() -> None:
    assert list(section_hashes("# T { #t }\n```python\n## x { #x }\n```\n")) == ["t"]
    assert list(section_hashes('# T { #t }\n\n??? note "N"\n\n    ## y { #y }\n\n    ~~~\n    ## x { #x }\n    ~~~\n')) == ["t"]
    with pytest.raises(ValueError, match="#t appears twice"):
        section_hashes("# T { #t }\n## T again { #t }\n")


def test_an_outdated_english_page_shows_a_notice_linking_to_the_chinese_original() -> None:
    # What the build hands over: the English page's front matter as MkDocs parsed it (the record is there,
    # not in its Markdown) and the Chinese page's whole text as the build read it.
    chinese = (DOCS / "zh" / "worked-example.md").read_text(encoding="utf-8")
    meta, _ = split_front_matter((DOCS / "en" / "worked-example.md").read_text(encoding="utf-8"))
    assert with_notice("Body.", "en/worked-example.md", "en/worked-example/", meta, {"worked-example.md": chinese}) == "Body."
    edited = {"worked-example.md": with_an_edited_paragraph(chinese, "step-4")}
    shown = with_notice("Body.", "en/worked-example.md", "en/worked-example/", meta, edited)
    assert NOTICE_CLASS in shown and shown.endswith("Body.")
    links = re.findall(r'href="([^"]+)"', shown)
    assert links == ["../../worked-example/#step-4", "../../worked-example/"], links
    assert with_notice("正文。", "zh/worked-example.md", "worked-example/", meta, edited) == "正文。"


def test_the_notice_compares_the_texts_it_is_given_and_reads_no_file() -> None:
    # A page that exists nowhere on disk: only the given texts can decide.
    chinese = "---\ndescription: 旧的描述。\n---\n\n# 甲 { #a }\n\n一。\n"
    meta = {"description": "An old description.", "translation": section_hashes(chinese)}
    assert with_notice("# A { #a }\n\nOne.\n", "en/nowhere.md", "en/nowhere/", meta, {"nowhere.md": chinese}) == "# A { #a }\n\nOne.\n"
    changed_front_matter = chinese.replace("旧的描述", "新的描述")  # the Chinese front matter counts: it is in the preamble
    shown = with_notice("Body.", "en/nowhere.md", "en/nowhere/", meta, {"nowhere.md": changed_front_matter})
    assert NOTICE_CLASS in shown and re.findall(r'href="([^"]+)"', shown) == ["../../nowhere/"]
    assert NOTICE_CLASS in with_notice("Body.", "en/nowhere.md", "en/nowhere/", {}, {"nowhere.md": chinese})  # no record
    with pytest.raises(LookupError, match="zh/nowhere.md is not among the pages of the zh nav"):
        with_notice("Body.", "en/nowhere.md", "en/nowhere/", meta, {})


def test_no_page_of_the_built_site_shows_the_notice(site: Path) -> None:
    shown = [str(path.relative_to(site)) for path in site.rglob("*.html") if NOTICE_CLASS in path.read_text(encoding="utf-8")]
    assert not shown, f"pages built with an outdated translation: {shown}"
