"""Give every page hover tooltips for the glossary terms, in the page's own language."""

from __future__ import annotations

from qkv_site.tooltips import add_tooltips


def on_page_content(html: str, page, **kwargs) -> str:
    lang = page.file.src_uri.split("/", 1)[0]
    if lang not in ("zh", "en"):
        return html
    return add_tooltips(html, lang)
