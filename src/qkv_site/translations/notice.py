"""The notice on an English page that is behind its Chinese source (see qkv_site.translations.records)."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from mkdocs.utils import get_relative_url

from qkv_site.translations.records import SOURCE_LANG, TRANSLATION_LANG, page_status, recorded_in

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


def with_notice(markdown: str, src_uri: str, url: str, meta: Mapping[str, Any], originals: Mapping[str, str]) -> str:
    """``markdown`` with the notice in front when it is an English page behind its Chinese original.

    ``meta`` is the English page's front matter (MkDocs' ``page.meta``: the record is there, not in
    ``markdown``); ``originals`` holds the Chinese pages' whole text as the build read them, by path
    inside the language folder (the Chinese nav's pages, read with it before the English pass); one missing is an error.

    >>> from qkv_site.translations.records import section_hashes
    >>> zh = "# 甲 { #a }\\n一。\\n"
    >>> with_notice("Body.", "en/a.md", "en/a/", {"translation": {"a": "0" * 12}}, {"a.md": zh})[:38]
    '<div class="qkv-translation-notice" ro'
    >>> with_notice("Body.", "en/a.md", "en/a/", {"translation": section_hashes(zh)}, {"a.md": zh})
    'Body.'
    """
    lang, _, name = src_uri.partition("/")
    if lang != TRANSLATION_LANG or not name.endswith(".md"):
        return markdown
    if name not in originals:
        raise LookupError(f"{src_uri}: its original {SOURCE_LANG}/{name} is not among the pages of the {SOURCE_LANG} nav")
    status = page_status(name, originals[name], recorded_in(meta))
    if not status.outdated:
        return markdown
    prefix = f"{TRANSLATION_LANG}/"
    source_url = url[len(prefix) :] if url.startswith(prefix) else url
    original = get_relative_url(source_url or ".", url)
    original = original if original.endswith("/") else f"{original}/"
    return notice(status.sections_to_read, original) + "\n\n" + markdown
