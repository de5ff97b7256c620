"""Formulas typeset when the site is built: MathJax's SVG with MathML, cached on disk, no script on the page."""

from __future__ import annotations

from qkv_site.formulas.cache import Formula, FormulaCache
from qkv_site.formulas.engine import FormulaError
from qkv_site.formulas.pages import insert_formulas, mark_formulas, mark_inline_text, plain_inline_text
from qkv_site.formulas.plain_text import plain_text

__all__ = ["Formula", "FormulaCache", "FormulaError", "insert_formulas", "mark_formulas", "mark_inline_text",
           "plain_inline_text", "plain_text"]
