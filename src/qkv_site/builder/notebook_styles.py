"""A notebook page with only the parts of JupyterLab's stylesheet it uses.

mkdocs-jupyter renders a notebook with nbconvert's lab template, which puts the whole of JupyterLab's
CSS into the page (about 580 KB, 88 KB gzip) and a script that would fetch mermaid from a CDN for a
diagram cell. `used_styles` keeps, of JupyterLab's ``<style>`` blocks (those styling
``.jupyter-wrapper``), the rules whose classes and ids occur in the page and the custom properties
those rules (or the page) use: the same page, drawn the same, in about a quarter of the bytes.
`without_unused_mermaid` drops the mermaid script from a page without a mermaid cell (the site has
none; a notebook with one keeps it, and the site's no-other-host tests would name the CDN).

    >>> page = ('<style>.jp-Cell{color:var(--jp-a)}.jp-Unused{margin:0}'
    ...         '.jupyter-wrapper{--jp-a:red;--jp-b:blue}</style><div class="jupyter-wrapper jp-Cell">x</div>')
    >>> used_styles(page)
    '<style>.jp-Cell{color:var(--jp-a)}.jupyter-wrapper{--jp-a:red}</style><div class="jupyter-wrapper jp-Cell">x</div>'
    >>> used_styles('<style>.jupyter-wrapper :is(.a, .b), .c, #d {margin:0}</style><p class="jupyter-wrapper">')
    '<style>.jupyter-wrapper :is(.a, .b){margin:0}</style><p class="jupyter-wrapper">'
    >>> loader = ('<script type="module">document.addEventListener("DOMContentLoaded", async () => {'
    ...           ' const diagrams = document.querySelectorAll(".jp-Mermaid > pre"); }); </script>')
    >>> without_unused_mermaid(f"<style>.jp-Mermaid{{}}</style>{loader}<p>x</p>")
    '<style>.jp-Mermaid{}</style><p>x</p>'
    >>> without_unused_mermaid(f'{loader}<div class="jp-Mermaid"></div>') == f'{loader}<div class="jp-Mermaid"></div>'
    True
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import tinycss2
from tinycss2.ast import AtRule, Declaration, Node, QualifiedRule

_STYLE = re.compile(r"(<style\b[^>]*>)(.*?)(</style>)", re.DOTALL | re.IGNORECASE)
_NAME = re.compile(r"[\w-]+")
_VARIABLE = re.compile(r"var\(\s*(--[\w-]+)")
_MERMAID = re.compile(r'<script type="module">\s*document\.addEventListener\("DOMContentLoaded", async \(\) => \{\s*'
                      r'const diagrams = document\.querySelectorAll\("\.jp-Mermaid[^"]*"\);.*?</script>\s*', re.DOTALL)
_MERMAID_CELL = re.compile(r'<[^>]*\bclass="[^"]*\bjp-Mermaid\b')
_GROUPS = ("media", "supports")  # at-rules that hold rules: filtered inside
JUPYTER = ".jupyter-wrapper"  # what JupyterLab's stylesheets style (nbconvert's lab template wraps the notebook in it)


@dataclass
class _Rule:
    """A rule that stays: its selectors (or an at-rule's prelude), and its declarations or its inner rules."""

    head: str
    declarations: list[Declaration] | None = None
    inner: list[_Rule] | None = None
    raw: str | None = None  # an at-rule kept as it is (@font-face, @keyframes, @import …)


def _used(selector: list[Node], names: set[str]) -> bool:
    """Whether every class and id the selector asks for occurs in the page (those inside ``:is()``,
    ``:not()`` and the like are not asked for: such a selector is kept)."""
    for before, token in zip([None, *selector], selector, strict=False):
        if token.type == "hash" and token.value not in names:
            return False
        if token.type == "ident" and before is not None and before.type == "literal" and before.value == "." \
                and token.value not in names:
            return False
    return True


def split_at_commas(tokens: Iterable[Node]) -> list[list[Node]]:
    """Tokens split at the commas outside brackets: a rule's prelude into its selectors (``:is(.a, .b)`` stays whole)."""
    parts: list[list[Node]] = [[]]
    for token in tokens:
        if token.type == "literal" and token.value == ",":
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def _declarations(content: list[Node] | None) -> list[Declaration]:
    return [node for node in tinycss2.parse_declaration_list(content or [], skip_whitespace=True, skip_comments=True)
            if isinstance(node, Declaration)]


def _kept(nodes: list[Node], names: set[str]) -> list[_Rule]:
    rules: list[_Rule] = []
    for node in nodes:
        if isinstance(node, QualifiedRule):
            used = [tinycss2.serialize(selector).strip() for selector in split_at_commas(node.prelude) if _used(selector, names)]
            if used:
                rules.append(_Rule(",".join(used), declarations=_declarations(node.content)))
        elif isinstance(node, AtRule) and node.lower_at_keyword in _GROUPS and node.content is not None:
            inner = _kept(tinycss2.parse_rule_list(node.content, skip_whitespace=True, skip_comments=True), names)
            if inner:
                rules.append(_Rule(f"@{node.at_keyword} {tinycss2.serialize(node.prelude).strip()}", inner=inner))
        elif isinstance(node, AtRule):
            rules.append(_Rule("", raw=tinycss2.serialize([node])))
    return rules


def _each(rules: list[_Rule]) -> list[_Rule]:
    return [one for rule in rules for one in ([rule] if rule.inner is None else _each(rule.inner))]


def _needed(rules: list[_Rule], page_variables: set[str]) -> set[str]:
    """The custom properties the kept rules use, with those their values use in turn."""
    needed = set(page_variables)
    definitions: dict[str, list[str]] = {}
    for rule in _each(rules):
        if rule.raw is not None:
            needed.update(_VARIABLE.findall(rule.raw))
        for declaration in rule.declarations or []:
            value = tinycss2.serialize(declaration.value)
            if declaration.name.startswith("--"):
                definitions.setdefault(declaration.name, []).append(value)
            else:
                needed.update(_VARIABLE.findall(value))
    pending = list(needed)
    while pending:
        for value in definitions.get(pending.pop(), []):
            for name in _VARIABLE.findall(value):
                if name not in needed:
                    needed.add(name)
                    pending.append(name)
    return needed


def _written(rules: list[_Rule], needed: set[str]) -> str:
    out = []
    for rule in rules:
        if rule.raw is not None:
            out.append(rule.raw)
        elif rule.inner is not None:
            inner = _written(rule.inner, needed)
            if inner:
                out.append(f"{rule.head}{{{inner}}}")
        else:
            kept = [f"{d.name}:{tinycss2.serialize(d.value).strip()}{' !important' if d.important else ''}"
                    for d in rule.declarations or [] if not d.name.startswith("--") or d.name in needed]
            if kept:
                out.append(f"{rule.head}{{{';'.join(kept)}}}")
    return "".join(out)


def used_styles(page_html: str) -> str:
    """``page_html`` with JupyterLab's ``<style>`` blocks reduced to what the page uses (a block left empty goes)."""
    jupyter = [match for match in _STYLE.finditer(page_html) if JUPYTER in match.group(2)]
    outside = _STYLE.sub(lambda match: " " if JUPYTER in match.group(2) else match.group(), page_html)
    names = set(_NAME.findall(_STYLE.sub(" ", page_html)))
    blocks = [(match, _kept(tinycss2.parse_stylesheet(match.group(2), skip_whitespace=True, skip_comments=True), names))
              for match in jupyter]
    needed = _needed([rule for _, rules in blocks for rule in rules], set(_VARIABLE.findall(outside)))
    pieces, last = [], 0
    for match, rules in blocks:
        css = _written(rules, needed)
        pieces += [page_html[last:match.start()], f"{match.group(1)}{css}{match.group(3)}" if css else ""]
        last = match.end()
    pieces.append(page_html[last:])
    return "".join(pieces)


def without_unused_mermaid(page_html: str) -> str:
    """``page_html`` without nbconvert's mermaid loader when the page has no mermaid cell."""
    return page_html if _MERMAID_CELL.search(page_html) else _MERMAID.sub("", page_html)
