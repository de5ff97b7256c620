"""The pages' Markdown read as the site reads it: its fenced code blocks, its headings, its prose.

One parser for every reader of the sources (the translation records, the tests): markdown-it-py
(CommonMark, with tables and the YAML front matter), plus the block containers of the pymdownx
extensions the site uses, which plain CommonMark does not know:

- ``!!! note "Title"`` (admonition), ``??? success "Title"`` and ``???+ …`` (details),
  ``=== "Tab"`` (tabbed, also ``===+`` and ``===!``).

Their body is indented by four spaces under the marker, as Python-Markdown reads it: the body goes
on over blank lines and ends at the first line indented less. CommonMark alone would read a fence
indented by four spaces as an indented code block, and the program inside as no fence at all.
``tests/build/test_markdown_source.py`` holds the fences found here equal to those pymdownx renders.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from mdit_py_plugins.front_matter import front_matter_plugin

# The marker of a pymdownx container and its title (an admonition or details type, a tab's label).
_CONTAINER = re.compile(r"(?P<marker>!!!|\?\?\?\+?|===[+!]{0,2})[ \t]+\S")
_CONTAINER_INDENT = 4
# An attribute list at the end of a heading (attr_list): ``## Title { #id }``.
_ATTRIBUTES = re.compile(r"\s*\{:?\s*(?P<attributes>[^{}]*)\}\s*$")
_ID = re.compile(r"(?:^|\s)#([\w-]+)")
# A heading written as HTML (the notebooks' markdown cells: ``<h2 id="hands-on">…</h2>``).
_HTML_HEADING = re.compile(r'^<h(?P<level>[1-6]) id="(?P<id>[\w-]+)">(?P<title>.*?)(?:</h(?P=level)>)?\s*$')
_TAG = re.compile(r"<[^>]+>")
_NEWLINE = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Fence:
    """One fenced code block: its info string (``python exec="on"``), its body (without the
    container's indentation), the line of its opening fence (from 1) and that line's indentation."""

    info: str
    body: str
    line: int
    indent: int

    @property
    def language(self) -> str:
        """The first word of the info string (``python``), or "" when it has none."""
        return self.info.split(maxsplit=1)[0] if self.info else ""


@dataclass(frozen=True)
class Heading:
    """One heading: level (1 for ``#``), title (without its attribute list), explicit id if any,
    line (from 1), and whether it stands at the top of the page (not inside a container or list)."""

    level: int
    title: str
    anchor: str | None
    line: int
    top_level: bool


@dataclass(frozen=True)
class MarkdownPage:
    """What the site's readers of a page need from its Markdown source."""

    text: str
    fences: tuple[Fence, ...]
    headings: tuple[Heading, ...]
    paragraph_lines: tuple[int, ...]  # the first line (from 1) of every paragraph
    code_lines: frozenset[int]  # the lines (from 0) of every code block, fences included

    @property
    def lines(self) -> list[str]:
        """The page's lines as the parser numbers them (from 0 here; ``line`` fields count from 1)."""
        return _lines(self.text)

    @property
    def prose(self) -> str:
        """The page without its code blocks: the Markdown a person wrote around the programs."""
        return "\n".join(line for i, line in enumerate(self.lines) if i not in self.code_lines)


def _lines(text: str) -> list[str]:
    # markdown-it ends a line at \n, \r\n or \r only (str.splitlines also at \f, \x1c, U+2028, …)
    return _NEWLINE.split(text)


def _pymdownx_container(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """A block rule for ``!!!``, ``???`` and ``===`` containers, their body indented by four spaces."""
    if state.is_code_block(start_line):
        return False
    start = state.bMarks[start_line] + state.tShift[start_line]
    opening = state.src[start : state.eMarks[start_line]]
    match = _CONTAINER.match(opening)
    if not match:
        return False
    if silent:
        return True
    body_indent = state.sCount[start_line] + _CONTAINER_INDENT
    last, line = start_line, start_line + 1
    while line < end_line:
        if not state.isEmpty(line):
            if state.sCount[line] < body_indent:
                break
            last = line
        line += 1
    end = last + 1
    token = state.push("container_open", "div", 1)
    token.markup, token.info, token.map, token.block = match["marker"], opening, [start_line, end], True
    old_indent, old_line_max = state.blkIndent, state.lineMax
    state.blkIndent, state.lineMax = body_indent, end
    state.md.block.tokenize(state, start_line + 1, end)
    state.blkIndent, state.lineMax = old_indent, old_line_max
    token = state.push("container_close", "div", -1)
    token.markup, token.block = match["marker"], True
    state.line = end
    return True


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable("table").use(front_matter_plugin)
    alt = ["paragraph", "reference", "blockquote", "list"]  # what it may interrupt, as the fence may
    md.block.ruler.before("fence", "pymdownx_container", _pymdownx_container, {"alt": alt})
    return md


_MARKDOWN = _parser()


def _heading(level: int, content: str, line: int, top_level: bool) -> Heading:
    attributes = _ATTRIBUTES.search(content)
    anchor = _ID.search(attributes["attributes"]) if attributes else None
    title = content[: attributes.start()] if attributes else content
    return Heading(level, title.strip(), anchor.group(1) if anchor else None, line, top_level)


@functools.lru_cache(maxsize=256)
def parse(text: str) -> MarkdownPage:
    """Read a page's Markdown.

    >>> page = parse('# Page { #page }\\n\\n!!! note "A"\\n\\n    ```python\\n    # not a heading\\n    x = 1\\n    ```\\n')
    >>> page.fences
    (Fence(info='python', body='# not a heading\\nx = 1\\n', line=5, indent=4),)
    >>> [(h.level, h.title, h.anchor) for h in page.headings]
    [(1, 'Page', 'page')]
    >>> page.prose
    '# Page { #page }\\n\\n!!! note "A"\\n\\n'
    """
    tokens = _MARKDOWN.parse(text)
    lines = _lines(text)
    fences, headings, paragraphs, code = [], [], [], set[int]()
    for i, token in enumerate(tokens):
        if token.map is None:
            continue
        first, after = token.map
        if token.type in ("fence", "code_block"):
            code.update(range(first, after))
        if token.type == "fence":
            source_line = lines[first]
            fences.append(Fence(token.info.strip(), token.content, first + 1, len(source_line) - len(source_line.lstrip(" "))))
        elif token.type == "heading_open":
            headings.append(_heading(int(token.tag[1]), tokens[i + 1].content, first + 1, token.level == 0))
        elif token.type == "html_block":
            for number in range(first, after):
                if html := _HTML_HEADING.match(lines[number].strip()):
                    title = _TAG.sub("", html["title"]).strip()
                    headings.append(Heading(int(html["level"]), title, html["id"], number + 1, token.level == 0))
        elif token.type == "paragraph_open":
            paragraphs.append(first + 1)
    return MarkdownPage(text, tuple(fences), tuple(headings), tuple(paragraphs), frozenset(code))


def read(path: Path) -> MarkdownPage:
    """Read the Markdown page at ``path``."""
    return parse(path.read_text(encoding="utf-8"))
