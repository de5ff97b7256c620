"""The pages' code blocks as pytest-codeblocks collects and runs them (a pytest plugin: ``-p page_codeblocks``
in pyproject.toml's addopts, next to ``--codeblocks``).

pytest-codeblocks reads a Markdown file with its own parser and runs the fences whose info string is exactly
``python``, ``sh`` or ``bash``. A page of this site shows a program as a ``python exec="on" …`` fence around
``--8<-- "<page>/<program>.py"``: pymdownx.snippets puts the program there, markdown-exec runs it when the site
is built and the page shows what it printed under it. For a page (a Markdown file in the docs folder of
mkdocs.yml) this plugin gives pytest-codeblocks the page as its reader sees it:

- the ``--8<--`` lines expanded by pymdownx.snippets itself, with the options mkdocs.yml gives it (its base
  paths taken from the folder of mkdocs.yml, where the build runs);
- the blocks read from that text by pytest-codeblocks' parser (`extract_from_buffer`), each named, as
  pytest-codeblocks names it, by the line of its fence in the page's own source;
- every Python fence run as a ``python`` block by pytest-codeblocks' `TestBlock`, whatever options follow
  ``python``; one that markdown-exec runs at build time expects the output the page shows under it: what
  markdown-exec's own runner (the function the build calls, `qkv_site.builder.compat.MARKDOWN_EXEC_RUN`) prints
  for the block, computed when the test runs. pytest-codeblocks then compares that with what the block
  printed in its own run, character for character.

The ``sh`` and ``bash`` blocks stay as pytest-codeblocks makes them; every other Markdown file is left to it.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import markdown
import markdown_exec
import numpy as np
import pytest
from mkdocs.config import load_config
from pymdownx.superfences import RE_NESTED_FENCE_START, RE_OPTIONS
from pytest_codeblocks import CodeBlock, extract_from_buffer
from pytest_codeblocks import plugin as codeblocks

SNIPPETS = "pymdownx.snippets"
PYTHON = ("python", "py")  # the fence languages markdown-exec runs as Python
RUNS = ("python", "sh", "bash")  # the syntaxes pytest-codeblocks runs
# markdown-exec options that make the build run a block otherwise than pytest-codeblocks runs it alone.
NOT_ALONE = {"session": "", "workdir": None, "width": 0, "returncode": 0}


class PageBlockError(Exception):
    """A page's block that this plugin cannot hand to pytest-codeblocks as the build runs it."""


@dataclass(frozen=True)
class Site:
    """What the plugin reads from mkdocs.yml: where the pages are and how pymdownx.snippets is set up."""

    docs_dir: Path
    snippets: dict[str, Any]  # pymdownx.snippets' options, base paths absolute

    def is_page(self, path: Path) -> bool:
        return path.suffix == ".md" and path.resolve().is_relative_to(self.docs_dir)


@cache
def site(config_file: Path) -> Site:
    """The docs folder and the pymdownx.snippets options of ``config_file`` (read once per process)."""
    config = load_config(str(config_file))
    options = dict(config["mdx_configs"].get(SNIPPETS, {}))
    if SNIPPETS not in config["markdown_extensions"]:
        raise PageBlockError(f"{config_file} does not list {SNIPPETS}: its pages cannot include programs")
    base = options.get("base_path", ["."])
    options["base_path"] = [str(config_file.parent / path) for path in ([base] if isinstance(base, str) else base)]
    return Site(Path(str(config["docs_dir"])).resolve(), options)


def expand(text: str, snippets: dict[str, Any]) -> str:
    """``text`` with its ``--8<--`` lines replaced as pymdownx.snippets replaces them when the site is built."""
    md = markdown.Markdown(extensions=[SNIPPETS], extension_configs={SNIPPETS: snippets})
    lines: list[str] = md.preprocessors["snippet"].run(text.split("\n"))
    return "\n".join(lines)


def read_fence(info: str) -> tuple[str, dict[str, Any] | None]:
    """The language of a fence with this info string (``python exec="on" source="above"``) and markdown-exec's
    options for it, None when the build does not run it; read with pymdownx.superfences' own patterns and
    markdown-exec's own validator, as the build reads them.

    >>> read_fence('python exec="on" source="tabbed-right" tabs="Code|Result" result="text"')[1]["tabs"]
    ('Code', 'Result')
    >>> read_fence("python"), read_fence("sh")
    (('python', None), ('sh', None))
    """
    fence = RE_NESTED_FENCE_START.match("```" + info)
    language = (fence["lang"] or "") if fence else ""
    if fence is None or language not in PYTHON:
        return language, None
    if fence["attrs"] or fence["unrecognized"]:
        raise PageBlockError(f"cannot read the options of ```{info}")
    inputs = {option["key"]: option["value"] if option["value"] is not None else option["key"]
              for option in RE_OPTIONS.finditer(fence["options"] or "")}
    options: dict[str, Any] = {}
    if not markdown_exec.validator(language, inputs, options, {}, None):
        return language, None
    differ = {name: options[name] for name, alone in NOT_ALONE.items() if options[name] != alone}
    if differ:
        raise PageBlockError(f"```{info}: markdown-exec runs it with {differ}, pytest-codeblocks runs each block alone")
    return language, options


@dataclass(frozen=True)
class PageBlock:
    """One block of a page: the line of its fence in the page's source, and the block as the reader sees it."""

    line: int
    block: CodeBlock  # its code expanded; syntax ``python`` for every Python fence
    build_run: dict[str, Any] | None  # markdown-exec's options when the build runs it (the page shows its output)


def page_blocks(page: Path, config_file: Path) -> list[PageBlock]:
    """Every fenced block of ``page`` as pytest-codeblocks reads it, its includes expanded."""
    source = page.read_text(encoding="utf-8")
    try:
        raw = extract_from_buffer(io.StringIO(source))
        shown = extract_from_buffer(io.StringIO(expand(source, site(config_file).snippets)))
    except Exception as error:
        raise PageBlockError(f"{page}: {type(error).__name__}: {error}") from error
    if [block.syntax for block in raw] != [block.syntax for block in shown]:
        raise PageBlockError(f"{page}: an included file adds or ends a fenced block")
    blocks = []
    for before, block in zip(raw, shown, strict=True):
        try:
            language, options = read_fence(block.syntax or "")
        except PageBlockError as error:
            raise PageBlockError(f"{page}, line {before.lineno}: {error}") from error
        if options is not None and block.expected_output is not None:
            raise PageBlockError(f"{page}, line {before.lineno}: the build prints its output; an expected output typed under it "
                                 "would show it twice")
        if language in PYTHON:
            block.syntax = "python"  # what pytest-codeblocks runs with exec
        block.lineno = before.lineno  # its failure messages name the line in the page's source
        blocks.append(PageBlock(before.lineno, block, options))
    return blocks


def shown_output(code: str, options: dict[str, Any]) -> str:
    """What the page shows under a block the build runs: markdown-exec's runner's output for ``code``, called
    as markdown-exec calls it. The build runs every block in one process: a block that changes numpy's print
    options changes what the blocks after it show, and is refused here."""
    from qkv_site.builder.block_runs import BlockRunner
    from qkv_site.builder.compat import MARKDOWN_EXEC_RUN

    run = MARKDOWN_EXEC_RUN.resolve()
    run = run.run if isinstance(run, BlockRunner) else run  # a build in this process put its cache in front
    before = np.get_printoptions()
    try:
        output: str = run(code, returncode=options["returncode"], session=options["session"], id=options["id"],
                          **options["extra"])
    finally:
        after = np.get_printoptions()
        np.set_printoptions(**before)
    if after != before:
        raise PageBlockError("it changes numpy's print options for the blocks after it")
    if not output:
        raise PageBlockError("it prints nothing: the page would show an empty result")
    return output


class PageTestBlock(codeblocks.TestBlock):
    """A Python block of a page, run by pytest-codeblocks (`TestBlock.runtest`). For a block the build runs,
    its setup puts the output the page shows in the block's ``expected_output``, which runtest compares."""

    build_run: dict[str, Any] | None = None

    def setup(self) -> None:
        if self.build_run is not None:
            try:
                self.obj.expected_output = shown_output(self.obj.code, self.build_run)
            except markdown_exec.ExecutionError as error:
                pytest.fail(f"{self.nodeid}: markdown-exec cannot run it, the build would fail:\n{error}", pytrace=False)
            except PageBlockError as error:
                pytest.fail(f"{self.nodeid}: {error}", pytrace=False)


class PageFile(codeblocks.MarkdownFile):
    """A page of the site, collected by pytest-codeblocks from its text as the reader sees it."""

    config_file: Path

    def collect(self) -> Iterator[codeblocks.TestBlock]:
        for found in page_blocks(self.path, self.config_file):
            block = found.block
            if block.syntax not in RUNS:
                continue
            kind = PageTestBlock if block.syntax == "python" else codeblocks.TestBlock
            item = kind.from_parent(self, name=f"line {found.line}")
            item.obj = block
            if isinstance(item, PageTestBlock):
                item.build_run = found.build_run
            for mark in block.marks:  # as pytest-codeblocks reads <!--pytest.mark.…-->
                item.add_marker(eval(mark, {"sys": sys, "pytest": pytest}))
            yield item


def page_file(parent: pytest.Collector, path: Path, config_file: Path) -> PageFile:
    collector: PageFile = PageFile.from_parent(parent, path=path)
    collector.config_file = config_file
    return collector


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Generator[None, list[Any], list[Any]]:
    """pytest-codeblocks' collector of a page becomes a `PageFile`; the rest stays as collected."""
    collected: list[Any] = yield
    config_file = parent.config.rootpath / "mkdocs.yml"
    if not any(type(node) is codeblocks.MarkdownFile for node in collected) or not config_file.is_file():
        return collected
    if not site(config_file).is_page(file_path):
        return collected
    return [page_file(parent, file_path, config_file) if type(node) is codeblocks.MarkdownFile else node for node in collected]
