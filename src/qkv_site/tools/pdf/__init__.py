"""The PDF edition: the whole site of one language in one PDF, printed by Chromium from the built site.

``python -m qkv_site.tools.pdf --site-dir site`` writes ``site/pdf/self-attention.<lang>.pdf`` for every
language of the site (see ``__main__.py``); the home page of each language links its PDF.

>>> pdf_path(Path("site"), "en").as_posix()
'site/pdf/self-attention.en.pdf'
"""

from __future__ import annotations

from pathlib import Path

PDF_FOLDER = "pdf"


def pdf_path(site: Path, lang: str) -> Path:
    """Where the PDF of language ``lang`` is written inside the built ``site``."""
    return site / PDF_FOLDER / f"self-attention.{lang}.pdf"
