"""The page sources: every reader-visible code block is collected and run, and no result is typed by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import numpy as np
from pytest_codeblocks import extract_from_file

from conftest import DOCS, ROOT, build_site
from qkv.examples import worked_example
from qkv_site.content.formatting import number
from qkv_site.markdown_source import read

def fenced_blocks(path: Path) -> list[tuple[str, str]]:
    """Every fenced block of a Markdown file as (info string, body)."""
    return [(fence.info, fence.body) for fence in read(path).fences]


def prose_of(path: Path) -> str:
    """The Markdown a person typed, without the blocks that are run (at build time or by the tests)."""
    return read(path).prose


def markdown_pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def test_pytest_codeblocks_collects_every_python_block_a_reader_sees() -> None:
    shown = collected = 0
    for page in markdown_pages():
        visible = [info for info, _ in fenced_blocks(page) if re.match(r"^(python|py|pycon)\b", info) and "exec=" not in info]
        shown += len(visible)
        collected += sum(block.syntax == "python" for block in extract_from_file(page))
        assert len(visible) == sum(block.syntax == "python" for block in extract_from_file(page)), (
            f"{page.relative_to(ROOT)}: a python block has an info string pytest-codeblocks skips: {visible}"
        )
    assert collected == shown, f"pytest-codeblocks collects {collected} python blocks, the pages show {shown}"


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


def test_every_python_block_with_output_declares_its_expected_output() -> None:
    for page in markdown_pages():
        for block in extract_from_file(page):
            if block.syntax == "python" and "print(" in block.code:
                assert block.expected_output is not None, f"{page.relative_to(ROOT)} line {block.lineno}: prints but shows no expected output"


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
