"""The pages' code blocks. tests/support/page_codeblocks.py: a page's blocks as pytest-codeblocks runs them, on a
small site of each test's own (mkdocs.yml, a page, the programs it includes): a block whose output differs from the
page's fails, as does a block the page could not show as it is, and a missing program stops the collection naming the
page. The pages' sources: every Python block a reader sees is run by pytest-codeblocks, and no result is typed by hand."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from build_support import build_site
from page_codeblocks import PageBlockError, PageTestBlock, page_file
from page_sources import DOCS_SRC
from pytest_codeblocks import plugin as codeblocks
from repository import DOCS, LANGUAGES, ROOT
from site_pages import rendered

from qkv.examples import worked_example
from qkv_site.markdown_source import parse, read
from qkv_site.project import Project
from qkv_site.values.formatting import number


def small_site(folder: Path, page: str, programs: dict[str, str]) -> tuple[Path, Path]:
    """A site in ``folder`` whose page docs/en/page.md is ``page`` and whose programs/ hold ``programs``;
    returns the page and the site's mkdocs.yml."""
    (folder / "docs" / "en").mkdir(parents=True)
    (folder / "programs").mkdir()
    for name, code in programs.items():
        (folder / "programs" / name).write_text(code, encoding="utf-8")
    config = folder / "mkdocs.yml"
    config.write_text("site_name: small\ndocs_dir: docs\nmarkdown_extensions:\n  - pymdownx.superfences\n"
                      "  - pymdownx.snippets:\n      base_path: [programs]\n      check_paths: true\n", encoding="utf-8")
    (folder / "docs" / "en" / "page.md").write_text(page, encoding="utf-8")
    return folder / "docs" / "en" / "page.md", config


def shown(program: str, options: str = 'exec="on" source="above" result="text"') -> str:
    """A page that shows ``program`` as the site's pages do, run at build time, inside an admonition."""
    return f'# Page\n\n!!! note "A program"\n\n    ```python {options}\n    --8<-- "{program}"\n    ```\n'


def items(request: pytest.FixtureRequest, page: Path, config: Path) -> list[codeblocks.TestBlock]:
    return list(page_file(request.session, page, config).collect())


def run(item: codeblocks.TestBlock) -> None:
    """What pytest does with an item: its setup, then its run."""
    item.setup()
    item.runtest()


def test_a_shown_program_is_run_as_python_and_expects_the_output_markdown_exec_printed(request: pytest.FixtureRequest,
                                                                                      tmp_path: Path) -> None:
    page, config = small_site(tmp_path, shown("two.py"), {"two.py": "import numpy as np\n\nprint(np.arange(2) + 1)\n"})
    (item,) = items(request, page, config)
    assert isinstance(item, PageTestBlock) and item.name == "line 5"  # the fence's line in the page's source
    assert (item.obj.syntax, item.obj.code) == ("python", "import numpy as np\n\nprint(np.arange(2) + 1)\n\n")
    run(item)
    assert item.obj.expected_output == "[1 2]\n"  # what markdown-exec printed, which pytest-codeblocks compared


def test_a_program_whose_output_differs_from_the_pages_fails(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    # markdown-exec's print joins its arguments with a space whatever `sep` says: the page shows "1 2",
    # a reader who runs the program sees "1, 2".
    page, config = small_site(tmp_path, shown("sep.py"), {"sep.py": 'print(1, 2, sep=", ")\n'})
    (item,) = items(request, page, config)
    with pytest.raises(RuntimeError, match=r"Expected output\n```\n1 2\n```\nbut got\n```\n1, 2\n```"):
        run(item)


@pytest.mark.parametrize(("program", "problem"), [
    ("import numpy as np\n\nnp.set_printoptions(precision=1)\nprint(np.pi)\n", "changes numpy's print options"),
    ("x = 1\n", "prints nothing"),
    ('raise ValueError("broken")\n', "markdown-exec cannot run it"),
])
def test_a_program_the_page_could_not_show_as_it_is_fails(request: pytest.FixtureRequest, tmp_path: Path,
                                                          program: str, problem: str) -> None:
    page, config = small_site(tmp_path, shown("program.py"), {"program.py": program})
    (item,) = items(request, page, config)
    with pytest.raises(pytest.fail.Exception, match=problem):
        run(item)


def test_plain_python_blocks_run_too_and_shell_blocks_keep_their_marks(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    page_text = ('```python\nprint(2 + 2)\n```\n\n<!--pytest-codeblocks:expected-output-->\n```\n5\n```\n\n'
                 '<!--pytest.mark.skip(reason="installs things")-->\n```sh\npip install qkv\n```\n')
    page, config = small_site(tmp_path, page_text, {})
    python, shell = items(request, page, config)
    assert isinstance(python, PageTestBlock) and python.build_run is None and python.obj.expected_output == "5\n"
    with pytest.raises(RuntimeError, match="but got\n```\n4\n```"):  # its typed output is compared as pytest-codeblocks does
        run(python)
    assert type(shell) is codeblocks.TestBlock and shell.obj.syntax == "sh"
    assert [mark.kwargs for mark in shell.iter_markers("skip")] == [{"reason": "installs things"}]


@pytest.mark.parametrize(("page_text", "problem"), [
    (shown("missing.py"), "missing.py"),
    (shown("one.py", 'exec="on" session="s" result="text"'), "session"),
    (shown("one.py") + "\n<!--pytest-codeblocks:expected-output-->\n```\n1\n```\n", "would show it twice"),
])
def test_a_page_the_plugin_cannot_read_stops_the_collection_naming_it(request: pytest.FixtureRequest, tmp_path: Path,
                                                                       page_text: str, problem: str) -> None:
    page, config = small_site(tmp_path, page_text, {"one.py": "print(1)\n"})
    with pytest.raises(PageBlockError, match=problem) as error:
        items(request, page, config)
    assert str(page) in str(error.value)


# The pages' sources: every Python block run, no result typed by hand ------------------------------




def fenced_blocks(path: Path) -> list[tuple[str, str]]:
    """Every fenced block of a Markdown file as (info string, body)."""
    return [(fence.info, fence.body) for fence in read(path).fences]


def prose_of(path: Path) -> str:
    """The Markdown a person typed, without the blocks that are run (at build time or by the tests)."""
    return read(path).prose


def markdown_pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def test_pytest_codeblocks_runs_every_python_block_the_pages_show(request: pytest.FixtureRequest, project: Project) -> None:
    # What pytest collects for each page with --codeblocks on (pytest-codeblocks' hook and tests/support/page_codeblocks.py's),
    # against the Python fences of the page as the build makes it: its named values filled in, then its programs
    # included by pymdownx.snippets, read by the site's own parser (qkv_site.markdown_source), not pytest-codeblocks'.
    from page_codeblocks import PageTestBlock, expand, site

    snippets = site(project.config_file).snippets
    # the folded code under a figure (qkv_site.builder.figure_markup.code_block) is its module, which the build runs to draw it
    drawing = {path.read_text(encoding="utf-8").rstrip("\n") for path in (ROOT / "src" / "qkv_site" / "figures").glob("*.py")}
    run_total = shown_total = 0
    for page in markdown_pages():
        lang = page.parent.name
        collectors = request.config.hook.pytest_collect_file(file_path=page, parent=request.session)
        items = [item for collector in collectors for item in collector.collect()]
        run = [item for item in items if isinstance(item, PageTestBlock) and not any(item.iter_markers())]
        shown = [fence for fence in parse(expand(rendered(page.name, lang, project), snippets)).fences
                 if fence.language in ("python", "py") and fence.body.rstrip("\n") not in drawing]
        where = page.relative_to(ROOT)
        assert len(run) >= len(shown), f"{where}: pytest-codeblocks runs {len(run)} Python blocks, the page shows {len(shown)}"
        codes = [item.obj.code for item in run]
        assert all(fence.body in codes for fence in shown), f"{where}: a Python block the page shows is not among those pytest-codeblocks runs"
        for item in run:  # the output a reader sees under a block is compared with what the block prints
            assert item.build_run is not None or item.obj.expected_output is not None or "print(" not in item.obj.code, (
                f"{where} {item.name}: prints, and the page shows no output to compare it with")
        run_total += len(run)
        shown_total += len(shown)
    assert run_total >= shown_total >= 2 * len(list(DOCS_SRC.rglob("*.py"))), f"pytest-codeblocks runs {run_total} Python blocks, the pages show {shown_total}"


def test_both_languages_show_every_program_and_only_existing_ones() -> None:
    from pymdownx.snippets import SnippetPreprocessor

    programs = {str(path.relative_to(DOCS_SRC)) for path in DOCS_SRC.rglob("*.py")}
    assert programs, "docs_src/ holds no program"
    for lang in LANGUAGES:
        lines = [line for page in (DOCS / lang).glob("*.md") for fence in read(page).fences for line in fence.body.splitlines()]
        included = {found["snippet"].strip("\"'") for line in lines if (found := SnippetPreprocessor.RE_ALL_SNIPPETS.match(line))}
        assert included == programs, f"docs/{lang}: shown {sorted(included)}, in docs_src {sorted(programs)}"


def test_a_page_in_prose_runs_only_programs_from_docs_src() -> None:
    # The pages whose numbers are named values (front matter `values:`) show and run programs kept
    # in docs_src/, one file for both languages: no code written into the page itself.
    pages = [page for page in markdown_pages() if page.read_text(encoding="utf-8").startswith("---\nvalues:")]
    assert len(pages) >= 2 * 12, f"only {len(pages)} pages are in the new form"
    for page in pages:
        for info, body in fenced_blocks(page):
            if info.startswith("python") and "exec=" in info:
                lines = [line.strip() for line in body.strip().splitlines()]
                assert len(lines) == 1 and lines[0].startswith('--8<-- "'), f"{page.relative_to(ROOT)}: inline code {lines[:3]}"


def test_no_result_matrix_is_typed_by_hand() -> None:
    example = worked_example()
    results = [example.q, example.k, example.v, example.scores, example.scaled_scores, example.weights, example.output]
    decimals = {number(x) for matrix in results for x in np.ravel(matrix) if "." in number(x)}
    assert decimals, "the worked example should have non-integer results to look for"
    for page in markdown_pages():
        prose = prose_of(page)
        assert "bmatrix" not in prose, f"{page.relative_to(ROOT)}: a matrix is typed by hand; print it from qkv instead"
        typed = sorted(d for d in decimals if re.search(rf"(?<![\d.]){re.escape(d)}(?![\d])", prose))
        assert not typed, f"{page.relative_to(ROOT)}: result values typed by hand: {typed}"


@pytest.mark.build  # builds a small site of its own
def test_a_failing_build_time_snippet_fails_the_build(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text('# Broken\n\n```python exec="on"\nraise ValueError("this snippet is broken")\n```\n', encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: broken\nplugins:\n  - markdown-exec\nmarkdown_extensions:\n  - pymdownx.superfences\n", encoding="utf-8")
    result = build_site(tmp_path / "site", config=config)
    assert result.returncode != 0
    assert "this snippet is broken" in result.stderr + result.stdout
