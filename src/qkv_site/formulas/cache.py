"""Typeset formulas kept on disk, keyed by the TeX, the display flag and the engine's version.

A rebuild that changes no formula starts no engine: every formula comes from here.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from html import escape
from pathlib import Path

from qkv_site.cache_files import atomic_write
from qkv_site.formulas.engine import MathJax, version
from qkv_site.formulas.plain_text import plain_text

_MATHML = re.compile(r"(<math\b[^>]*>)(.*?)(</math>)", re.DOTALL)


def _with_tex(html: str, tex: str) -> str:
    """The TeX kept with the MathML as its annotation: the cached formula says what it was typeset from
    (the tests read it back from the cache); a page does not carry it (`qkv_site.formulas.pages.without_tex`)."""
    annotation = f'<annotation encoding="application/x-tex">{escape(tex, quote=False)}</annotation>'
    def wrapped(m: re.Match[str]) -> str:
        return f"{m.group(1)}<semantics><mrow>{m.group(2)}</mrow>{annotation}</semantics>{m.group(3)}"

    return _MATHML.sub(wrapped, html, count=1)


@dataclass(frozen=True)
class Formula:
    """One typeset formula: the markup for the page and the plain text for title and search."""

    html: str
    text: str


class FormulaCache:
    """Typeset a formula once, ever: later calls (and later builds) read it from ``directory``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     cache = FormulaCache(Path(folder))
    ...     first = cache.get(r"K^T", display=False)
    ...     again = FormulaCache(Path(folder)).get(r"K^T", display=False)
    ...     cache.close()
    >>> first.text, again == first, cache.typeset
    ('Kᵀ', True, 1)
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._version = version()
        self._engine: MathJax | None = None
        self._memory: dict[str, Formula] = {}
        self.typeset = 0  # formulas the engine typeset (cache misses)
        self.reused = 0  # formulas read from memory or disk

    def key(self, tex: str, display: bool) -> str:
        text = json.dumps([self._version, "svg+mathml+tex", display, tex])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]

    def get(self, tex: str, display: bool) -> Formula:
        """The typeset formula; raises ``FormulaError`` (naming the TeX) when MathJax cannot read it."""
        key = self.key(tex, display)
        if key in self._memory:
            self.reused += 1
            return self._memory[key]
        path = self.directory / f"{key}.json"
        if path.is_file():
            stored = json.loads(path.read_text(encoding="utf-8"))
            formula = Formula(stored["html"], stored["text"])
            self.reused += 1
        else:
            if self._engine is None:
                self._engine = MathJax()
            html = self._engine.typeset(tex, display)
            mathml = _MATHML.search(html)
            formula = Formula(_with_tex(html, tex), plain_text(mathml.group(0)) if mathml else tex)
            # Written aside and renamed: a build running at the same time never reads half a file.
            atomic_write(path, json.dumps({"tex": tex, "display": display, "html": formula.html, "text": formula.text}))
            self.typeset += 1
        self._memory[key] = formula
        return formula

    def keyed(self, tex: str, display: bool) -> tuple[str, Formula]:
        """The key and the typeset formula (a page keeps the key until the page is finished)."""
        formula = self.get(tex, display)
        return self.key(tex, display), formula

    def markup(self, key: str) -> str:
        """The typeset markup of a formula this cache has handed out during this build."""
        return self._memory[key].html

    def close(self) -> None:
        """Stop the engine (a later ``get`` starts a new one if it needs to)."""
        if self._engine is not None:
            self._engine.close()
            self._engine = None
