"""The notice on an English page that is behind its Chinese source (see qkv_site.translations.records)."""

from __future__ import annotations

import html
from pathlib import Path

from mkdocs.utils import get_relative_url

from qkv_site.translations.records import TRANSLATION_LANG, page_status

NOTICE_CLASS = "qkv-translation-notice"


def notice(sections: tuple[str, ...], original_url: str) -> str:
    """The HTML notice of an outdated translation, linking to the Chinese page and its changed sections."""
    where = "".join(f' <a href="{html.escape(original_url)}#{html.escape(key)}">#{html.escape(key)}</a>' for key in sections)
    changed = f" Sections changed since then:{where}." if where else ""
    return (
        f'<div class="{NOTICE_CLASS}" role="note"><p>This translation is behind the Chinese original, '
        f"which was edited after the page was last translated.{changed} "
        f'<a href="{html.escape(original_url)}" hreflang="zh" lang="zh">阅读中文原文</a> (read the Chinese original).</p></div>'
    )


def with_notice(markdown: str, src_uri: str, url: str, docs_dir: Path) -> str:
    """``markdown`` with the notice in front when it is an English page behind its Chinese original."""
    lang, _, name = src_uri.partition("/")
    if lang != TRANSLATION_LANG or not name.endswith(".md"):
        return markdown
    status = page_status(docs_dir, name)
    if not status.outdated:
        return markdown
    prefix = f"{TRANSLATION_LANG}/"
    source_url = url[len(prefix) :] if url.startswith(prefix) else url
    original = get_relative_url(source_url or ".", url)
    original = original if original.endswith("/") else f"{original}/"
    return notice(status.sections_to_read, original) + "\n\n" + markdown
