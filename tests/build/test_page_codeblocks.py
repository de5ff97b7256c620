"""tests/page_codeblocks.py: a page's blocks as pytest-codeblocks runs them, on a small site of each test's own
(mkdocs.yml, a page, the programs it includes): a block whose output differs from the page's fails, as does a
block the page could not show as it is, and a missing program stops the collection naming the page."""

from __future__ import annotations

from pathlib import Path

import pytest
from page_codeblocks import PageBlockError, PageTestBlock, page_file
from pytest_codeblocks import plugin as codeblocks


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
