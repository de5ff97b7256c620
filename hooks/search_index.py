"""One search index per language, holding the article's text only.

- Material's search plugin indexes ``page.content`` in its own ``on_page_context`` (priority 0). Just
  before it, the page's HTML is swapped for `qkv_site.search_text.search_view` (formulas as plain
  text, no display formulas, SVG or build-code tabs); just after it, the real HTML is put back.
- mkdocs-static-i18n merges both languages into one ``search/search_index.json``, so a search on an
  English page counted (and listed) the Chinese pages too. After the last build, the index is split:
  the Chinese pages stay in ``search/``, the English ones move to ``en/search/`` with their locations
  relative to ``en/``, and every English page points Material (its ``__config`` ``base``, which Material
  reads the index and resolves the results' links from) at ``en/``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.plugins import CombinedEvent, event_priority

from qkv_site.search_text import search_view

ENGLISH = "en/"
_ORIGINAL = "_qkv_html_before_search"
_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.DOTALL)


def _is_english(page) -> bool:
    return page.file.src_uri.startswith(ENGLISH)


@event_priority(10)  # before Material's search plugin reads page.content
def _show_search_view(context, page, config, nav, **kwargs):
    setattr(page, _ORIGINAL, page.content)
    page.content = search_view(page.content or "")
    return context


@event_priority(-10)  # after it
def _restore(context, page, config, nav, **kwargs):
    page.content = getattr(page, _ORIGINAL)
    return context


on_page_context = CombinedEvent(_show_search_view, _restore)


def on_post_page(output: str, page, config, **kwargs) -> str:
    if not _is_english(page):
        return output
    match = _CONFIG.search(output)
    if not match:
        raise ValueError(f"{page.file.src_uri}: Material's __config script is missing, cannot point search at {ENGLISH}")
    app = json.loads(match[2])
    app["base"] = app["base"].rstrip("/") + "/" + ENGLISH
    return output[: match.start(2)] + json.dumps(app, ensure_ascii=False, separators=(",", ":")) + output[match.end(2):]


@event_priority(-120)  # after mkdocs-static-i18n (-100) has built every language and written the merged index
def on_post_build(config, **kwargs) -> None:
    site = Path(config.site_dir)
    path = site / "search" / "search_index.json"
    index = json.loads(path.read_text(encoding="utf-8"))
    chinese = [doc for doc in index["docs"] if not doc["location"].startswith(ENGLISH)]
    english = [{**doc, "location": doc["location"][len(ENGLISH):]} for doc in index["docs"] if doc["location"].startswith(ENGLISH)]
    _write(path, {**index, "docs": chinese})
    _write(site / ENGLISH / "search" / "search_index.json", {**index, "config": {**index["config"], "lang": ["en"]}, "docs": english})


def _write(path: Path, index: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
