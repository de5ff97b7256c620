"""The one Markdown parser of the sources (qkv_site.markdown_source) reads the pages as the site does."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import markdown
import pytest
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from repository import DOCS, ROOT

from qkv_site.markdown_source import Fence, parse, read

MARKDOWN_PAGES = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))


@cache
def site_config() -> MkDocsConfig:
    return load_config(str(ROOT / "mkdocs.yml"))


def pymdownx_fences(text: str) -> list[tuple[str, dict[str, str], str]]:
    """The fenced blocks Python-Markdown renders from ``text`` with the site's own extensions
    (mkdocs.yml), as (language, options, body): superfences hands every fence, at any depth, to a
    formatter that writes it down. Snippets are left out, so that a ``--8<--`` line stays the line it is."""
    config = site_config()
    extensions = [name for name in config["markdown_extensions"] if name != "pymdownx.snippets"]
    found: list[tuple[str, dict[str, str], str]] = []

    def keep(language: str, inputs: dict[str, Any], options: dict[str, Any], attrs: dict[str, Any], md: Any) -> bool:
        options.update(inputs)  # the info string's key="value" options, as superfences reads them
        return True

    def write_down(source: str, language: str, class_name: str, options: dict[str, Any], md: Any, **kwargs: Any) -> str:
        found.append((language, options, source))
        return "<pre></pre>"

    configs = {name: value for name, value in config["mdx_configs"].items() if name in extensions}
    configs["pymdownx.superfences"] = {"custom_fences": [{"name": "*", "class": "fence", "format": write_down, "validator": keep}]}
    markdown.Markdown(extensions=extensions, extension_configs=configs).convert(text)
    return found


def as_pymdownx_reads_it(fence: Fence) -> tuple[str, dict[str, str], str]:
    options = dict(re.findall(r'([\w-]+)="([^"]*)"', fence.info))
    return fence.language, options, fence.body.removesuffix("\n")


def unordered(fences: list[tuple[str, dict[str, str], str]]) -> list[tuple[str, list[tuple[str, str]], str]]:
    # superfences formats nested fences after the top-level ones: compare the two as sorted lists
    return sorted((language, sorted(options.items()), body) for language, options, body in fences)


@pytest.mark.parametrize("page", MARKDOWN_PAGES)
def test_the_fences_of_a_page_are_those_pymdownx_renders(page: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    ours = unordered([as_pymdownx_reads_it(fence) for fence in read(DOCS / page).fences])
    theirs = unordered(pymdownx_fences(text))
    assert ours == theirs, f"{page}: the parser finds {len(ours)} fences, pymdownx renders {len(theirs)}"


def test_the_pages_hold_fences_inside_containers() -> None:
    # The comparison above proves something only if some fences are inside !!!/??? blocks.
    nested = [fence for page in MARKDOWN_PAGES for fence in read(DOCS / page).fences if fence.indent >= 4]
    assert len(nested) >= 20, f"only {len(nested)} fences inside containers"


CONTAINERS = """\
# Page { #page }

!!! note "A note"

    ```python
    a = 1
    ```

??? success "Solution"

    Text.

    ```python exec="on"
    b = 2
    ```


    Still the solution, after two blank lines.

    1. A step:

        ```sh
        echo c
        ```

=== "Tab"

    ~~~text
    ## not a heading { #no }
    ~~~

## Part { #part }

    an indented code block
"""


def test_fences_inside_admonitions_details_tabs_and_lists() -> None:
    page = parse(CONTAINERS)
    assert [(f.info, f.body, f.line, f.indent) for f in page.fences] == [
        ("python", "a = 1\n", 5, 4),
        ('python exec="on"', "b = 2\n", 13, 4),
        ("sh", "echo c\n", 22, 8),
        ("text", "## not a heading { #no }\n", 28, 4),
    ]
    assert unordered(list(map(as_pymdownx_reads_it, page.fences))) == unordered(pymdownx_fences(CONTAINERS))


def test_headings_are_read_outside_code_only() -> None:
    page = parse(CONTAINERS)
    assert [(h.level, h.title, h.anchor, h.line, h.top_level) for h in page.headings] == [
        (1, "Page", "page", 1, True),
        (2, "Part", "part", 32, True),
    ]


def test_the_prose_is_the_page_without_its_code() -> None:
    prose = parse(CONTAINERS).prose
    assert "Still the solution" in prose and "Text." in prose
    assert not any(code in prose for code in ("a = 1", "b = 2", "echo c", "not a heading", "an indented code block", "```", "~~~"))


def test_a_container_ends_where_its_indentation_does() -> None:
    page = parse('!!! note "A"\n\n    In the note.\n\n```python\nafter = 1\n```\n\nAfter the note.\n')
    assert [(f.info, f.indent, f.line) for f in page.fences] == [("python", 0, 5)]
    assert page.paragraph_lines == (3, 9)


def test_front_matter_is_no_heading() -> None:
    page = parse("---\ntitle: A\n# a YAML comment\n---\n\n# Title { #title }\n")
    assert [(h.title, h.line) for h in page.headings] == [("Title", 6)]


def test_html_headings_are_headings() -> None:
    page = parse('<h2 id="hands-on">Hands on</h2>\n\nText.\n')
    assert [(h.level, h.title, h.anchor) for h in page.headings] == [(2, "Hands on", "hands-on")]
