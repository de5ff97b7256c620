"""Give every page hover tooltips for the glossary terms, in the page's own language."""

from __future__ import annotations

from qkv_site.glossary import abbreviations


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    lang = page.file.src_uri.split("/", 1)[0]
    if lang not in ("zh", "en"):
        return markdown
    return markdown + "\n\n" + abbreviations(lang) + "\n"
