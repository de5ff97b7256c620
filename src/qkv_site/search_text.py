"""What the search index reads of a page: the article as text, without typeset math or build code.

Material's search plugin indexes a page's HTML as it is, so formulas reached the index as TeX (or, once
typeset, as SVG and MathML) and the “代码 / Code” tab of every computed result as Python. `search_view`
returns the HTML the index should read instead: an inline formula becomes plain text (``√dₖ``), a
display formula, an SVG, a build-code tab, a folded “这一节是怎么算的 / How this section is computed”
block (``??? example``: the code that computed a section's numbers), an exercise's folded solution
(``??? success``: the reader opens it after trying, it is not the page's text, and a search that matched
it would rank the exercise above the section it practises and show the answer in the snippet) and a
caption's “绘图代码 / Figure code” link go; everything else stays as it is (a reader's own code block,
an exercise's question).

>>> search_view('<h2 id="s">Scale by <span class="arithmatex">\\\\(\\\\sqrt{d_k}\\\\)</span></h2>')
'<h2 id="s">Scale by √dₖ</h2>'
>>> search_view('<h2 id="s">Scale by <span class="arithmatex" data-formula="k1">√dₖ</span></h2>')
'<h2 id="s">Scale by √dₖ</h2>'
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Tag

# Elements that hold a formula, however it was rendered: arithmatex's TeX wrapper, MathJax's
# container, MathML, KaTeX.
MATH = ".arithmatex, mjx-container, math, .katex, .MathJax"
# Where formulas stay TeX in the text until the browser typesets them (a notebook's markdown cells).
TEX_IN_TEXT = ".jp-RenderedMarkdown, .jp-MarkdownOutput"
_DISPLAY_TEX = re.compile(r"\$\$.+?\$\$|\\\[.+?\\\]|\\begin\{(\w+\*?)\}.+?\\end\{\1\}", re.DOTALL)
_INLINE_TEX = re.compile(r"\\\(.+?\\\)|(?<![\\$])\$[^$\n]+?\$", re.DOTALL)
# What the index never reads: the folded build code, an exercise's folded solution, a figure's code link.
FOLDED_OUT = "details.example, details.success, a.figure-source"
# Where a typeset formula keeps its TeX source, if it does.
TEX_ATTRIBUTES = ("data-tex", "data-latex", "alttext", "aria-label")

_SUBSCRIPTS = dict(zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))
_SUPERSCRIPTS = dict(zip("0123456789+-=()inTt", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿᵀᵗ"))
_SYMBOLS = {
    "cdot": "·", "times": "×", "approx": "≈", "neq": "≠", "ne": "≠", "leq": "≤", "le": "≤", "geq": "≥",
    "ge": "≥", "to": "→", "rightarrow": "→", "leftarrow": "←", "infty": "∞", "sum": "Σ", "ldots": "…",
    "dots": "…", "cdots": "⋯", "lVert": "‖", "rVert": "‖", "Vert": "‖", "mid": "|", "in": "∈", "pm": "±",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "theta": "θ",
    "lambda": "λ", "mu": "μ", "pi": "π", "sigma": "σ", "tau": "τ", "ell": "ℓ", "Sigma": "Σ",
    "quad": " ", "qquad": " ", ",": " ", ";": " ", ":": " ", "!": "", " ": " ",
    "{": "{", "}": "}", "%": "%", "_": "_", "#": "#",
}
_GROUP = r"\{((?:[^{}]|\{[^{}]*\})*)\}"  # one {…} group, one level of nesting inside


def _script(text: str, table: dict[str, str], marker: str) -> str:
    """``text`` in Unicode sub- or superscript letters, or ``marker`` + text when one has none."""
    if text and all(char in table for char in text):
        return "".join(table[char] for char in text)
    return marker + _paren(text)


def tex_to_text(tex: str) -> str:
    """A short TeX formula as plain text, the way it reads.

    >>> tex_to_text(r"\\sqrt{d_k}")
    '√dₖ'
    >>> tex_to_text(r"O(n^2 \\cdot d)")
    'O(n² · d)'
    >>> tex_to_text(r"\\text{softmax}\\left(\\frac{QK^T}{\\sqrt{d_k}}\\right)V")
    'softmax(QKᵀ/√dₖ)V'
    """
    text = tex.strip()
    for opening, closing in (("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$"), ("$", "$")):
        if text.startswith(opening) and text.endswith(closing) and len(text) >= len(opening) + len(closing):
            text = text[len(opening): len(text) - len(closing)]
            break
    text = re.sub(r"\\(?:left|right|big|Big|bigg|Bigg)(?![a-zA-Z])\s*", "", text)
    text = re.sub(r"_([A-Za-z0-9])", lambda m: _script(m[1], _SUBSCRIPTS, "_"), text)
    text = re.sub(r"\^([A-Za-z0-9])", lambda m: _script(m[1], _SUPERSCRIPTS, "^"), text)
    for _ in range(3):  # nested groups, inside out
        text = re.sub(r"\\(?:text|mathrm|mathbf|mathit|operatorname|boldsymbol|mathsf|texttt)\s*" + _GROUP, r"\1", text)
        text = re.sub(r"\\frac\s*" + _GROUP + r"\s*" + _GROUP, lambda m: f"{_paren(tex_to_text(m[1]))}/{_paren(tex_to_text(m[2]))}", text)
        text = re.sub(r"\\sqrt\s*" + _GROUP, lambda m: "√" + _paren(tex_to_text(m[1])), text)
        text = re.sub(r"_\s*" + _GROUP, lambda m: _script(tex_to_text(m[1]), _SUBSCRIPTS, "_"), text)
        text = re.sub(r"\^\s*" + _GROUP, lambda m: _script(tex_to_text(m[1]), _SUPERSCRIPTS, "^"), text)
    text = re.sub(r"\\([A-Za-z]+|.)", lambda m: _SYMBOLS.get(m[1], ""), text)
    text = text.replace("{", "").replace("}", "").replace("&", " ").replace("~", " ")
    text = re.sub(r"\s*([·×≈≠≤≥→←∈±])\s*", r" \1 ", text)
    return re.sub(r"\s+", " ", text).strip()


def _paren(text: str) -> str:
    """``text`` as one operand: in parentheses when it is more than one symbol and not already."""
    text = text.strip()
    compound = re.search(r"[\s+\-/·×=]", text) and not (text.startswith("(") and text.endswith(")"))
    return f"({text})" if compound else text


def _tex_of(element: Tag) -> str | None:
    """The TeX source of a formula element, wherever it keeps it; ``None`` when it keeps none."""
    own = element.get_text()
    if element.name != "math" and not element.find(["svg", "math", "mjx-container"]) and own.strip()[:2] in ("\\(", "\\[", "$$") or own.strip()[:1] == "$":
        return own
    for attribute in TEX_ATTRIBUTES:
        for candidate in [element, *element.find_all(attrs={attribute: True})]:
            if candidate.get(attribute):
                return str(candidate[attribute])
    annotation = element.find("annotation", attrs={"encoding": "application/x-tex"})
    return annotation.get_text() if annotation else None


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


def search_view(html: str) -> str:
    """The page's HTML as the search index should read it (see the module's docstring)."""
    soup = BeautifulSoup(html, "html.parser")
    for tab in _code_tabs(soup):
        tab.decompose()
    for folded in soup.select(FOLDED_OUT):
        folded.decompose()
    for element in soup.select(MATH):
        if element.decomposed or element.find_parent(lambda tag: tag is not element and tag.name in ("math", "mjx-container") or "arithmatex" in (tag.get("class") or [])):
            continue
        if element.has_attr("data-formula"):  # hooks/formulas.py has already put the plain text here
            element.decompose() if _is_display(element) else element.replace_with(element.get_text())
            continue
        tex = None if _is_display(element) else _tex_of(element)
        if tex is None:
            element.decompose()
        else:
            element.replace_with(tex_to_text(tex))
    for container in soup.select(TEX_IN_TEXT):
        for node in container.find_all(string=True):
            if node.find_parent(["code", "pre"]) or not ("$" in node or "\\" in node):
                continue
            text = _DISPLAY_TEX.sub(" ", str(node))
            node.replace_with(_INLINE_TEX.sub(lambda match: tex_to_text(match[0]), text))
    for leftover in soup.find_all(["svg", "math", "mjx-container", "script", "style"]):
        if not leftover.decomposed:
            leftover.decompose()
    return str(soup)
