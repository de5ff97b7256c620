"""What the search index reads of a page: the article as text, without typeset math or build code.

Material's search plugin indexes a page's HTML as it is, so formulas would reach the index as SVG and
MathML and the “代码 / Code” tab of every computed result as Python. `search_view` returns the HTML the
index should read instead. The build (`qkv_site.formulas.build`) has already put each formula's plain
text in a marker (``data-formula``): an inline formula becomes that text (``√dₖ``); a display formula,
an SVG, a build-code tab, a folded “这一节是怎么算的 / How this section is computed” block
(``??? example``: the code that computed a section's numbers), an exercise's folded solution
(``??? success``: the reader opens it after trying, it is not the page's text, and a search that matched
it would rank the exercise above the section it practises and show the answer in the snippet) and a
caption's “绘图代码 / Figure code” link go; everything else stays as it is (a reader's own code block,
an exercise's question). A formula without its marker is a build error: the index would read TeX.

Two shapes are changed so that a result reads as the page does:

- A table becomes one paragraph per row, its cells joined by `CELLS` (Material's index keeps
  paragraphs, not tables, so a table was one run of text; a result now shows the rows that matched).
- A notebook's headings sit inside its cells' ``div``s, so Material's index gave every code cell after a
  heading to the page instead of to the heading's section. The containers of a heading are unwrapped,
  so each section holds what follows its heading; the cells' prompts (``In [1]:``) and their copy
  buttons, with the hidden copy of each cell's code, go.

>>> search_view('<h2 id="s">Scale by <span class="arithmatex" data-formula="k1">√dₖ</span></h2>')
'<h2 id="s">Scale by √dₖ</h2>'
"""

from __future__ import annotations

from bs4 import BeautifulSoup, Comment, Tag

# Elements that hold a formula, however it was rendered: arithmatex's TeX wrapper, MathJax's
# container, MathML, KaTeX.
MATH = ".arithmatex, mjx-container, math, .katex, .MathJax"
# What the index never reads: the folded build code, an exercise's folded solution, a figure's code link,
# a notebook cell's prompt, its copy button (which holds a hidden second copy of the cell's code) and
# the bar that folds it.
FOLDED_OUT = ("details.example, details.success, a.figure-source, .jp-InputPrompt, .jp-OutputPrompt, "
              ".zeroclipboard-container, .clipboard-copy-txt, .jp-Collapser")
# Between the cells of a table row, as the index reads it.
CELLS = " · "


def _holds_a_formula(element: Tag) -> bool:
    return element.name in ("math", "mjx-container") or "arithmatex" in (element.get("class") or [])


def _is_display(element: Tag) -> bool:
    return element.name == "div" or element.get("display") in ("true", "block") or element.get("jax") == "display"


def _code_tabs(soup: BeautifulSoup) -> list[Tag]:
    """The tabs that show the code a result was computed by (markdown-exec's tabbed source)."""
    tabs = []
    for tab_set in soup.select(".tabbed-set"):
        if not tab_set.select_one("input[id^='exec-']"):
            continue
        for block in tab_set.select(":scope > .tabbed-content > .tabbed-block"):
            children = [child for child in block.children if isinstance(child, Tag)]
            if children and all(child.name == "pre" or "highlight" in (child.get("class") or []) for child in children):
                tabs.append(block)
        labels = tab_set.select_one(":scope > .tabbed-labels")
        if labels:
            tabs.append(labels)  # “结果 代码 / Result Code” is not part of the text
    return tabs


def _rows_as_paragraphs(soup: BeautifulSoup) -> None:
    """Each table row becomes a paragraph of its cells' contents, ``CELLS`` between them.

    >>> soup = BeautifulSoup("<table><tr><th>a</th><th>b</th></tr><tr><td><b>1</b></td><td>2</td></tr></table>", "html.parser")
    >>> _rows_as_paragraphs(soup); str(soup)
    '<p>a · b</p><p><b>1</b> · 2</p>'
    """
    for table in soup.select("table"):
        rows = []
        for row in table.select("tr"):
            paragraph = soup.new_tag("p")
            for number, cell in enumerate(row.find_all(["th", "td"], recursive=False)):
                if number:
                    paragraph.append(CELLS)
                paragraph.extend(list(cell.contents))
            rows.append(paragraph)
        table.replace_with(*rows)


def _headings_at_the_top(soup: BeautifulSoup) -> None:
    """Unwrap every element that holds a heading (a notebook's cells), so that its section takes what follows."""
    for heading in soup.find_all(["h1", "h2", "h3", "h4", "h5", "h6"]):
        for container in list(heading.parents):
            if container is not soup and container.name is not None:
                container.unwrap()


def search_view(html: str) -> str:
    """The page's HTML as the search index should read it (see the module's docstring)."""
    soup = BeautifulSoup(html, "html.parser")
    for tab in _code_tabs(soup):
        tab.decompose()
    for folded in soup.select(FOLDED_OUT):
        folded.decompose()
    for element in soup.select(MATH):
        if element.decomposed or any(_holds_a_formula(parent) for parent in element.parents):
            continue  # part of a formula already read
        if not element.has_attr("data-formula"):
            raise ValueError(f"a formula without its plain-text marker (qkv_site.formulas.build): {str(element)[:200]}")
        element.decompose() if _is_display(element) else element.replace_with(element.get_text())
    for leftover in soup.find_all(["svg", "math", "mjx-container", "script", "style"]):
        if not leftover.decomposed:
            leftover.decompose()
    for comment in soup.find_all(string=lambda text: isinstance(text, Comment)):
        comment.extract()
    _rows_as_paragraphs(soup)
    _headings_at_the_top(soup)
    # Material's index gives anything before the first heading to a section of its own, before the page's.
    return str(soup).lstrip()
