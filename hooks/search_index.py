"""One search index per language, holding the article's text only.

- Material's search plugin indexes ``page.content`` in its own ``on_page_context`` (priority 0). Just
  before it, the page's HTML is swapped for `qkv_site.search_text.search_view` (formulas as plain
  text, no display formulas, SVG or build-code tabs); just after it, the real HTML is put back.
- Making that view parses the page's HTML (about 6 MB for the whole site, most of it formula SVG),
  the slowest step of a rebuild: views are kept in ``.cache/search-view/``, keyed by the page's HTML,
  in a folder per `qkv_site.build_cache.process_digest` (a change to the code that makes them starts
  a new folder and deletes the old one).
- mkdocs-static-i18n merges both languages into one ``search/search_index.json``, so a search on an
  English page counted (and listed) the Chinese pages too. After the last build, the index is split:
  the Chinese pages stay in ``search/``, the English ones move to ``en/search/`` with their locations
  relative to ``en/``, and every English page points Material (its ``__config`` ``base``, which Material
  reads the index and resolves the results' links from) at ``en/``.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

from mkdocs.plugins import CombinedEvent, event_priority

from qkv_site.build_cache import process_digest
from qkv_site.search_text import search_view

ENGLISH = "en/"
_ORIGINAL = "_qkv_html_before_search"
_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.DOTALL)


def _is_english(page) -> bool:
    return page.file.src_uri.startswith(ENGLISH)


_views: dict = {"folder": None}


def on_config(config, **kwargs):
    views = Path(config.config_file_path).resolve().parent / ".cache" / "search-view"
    current = views / process_digest()[:16]
    if views.is_dir():  # views made by other code can never be used again
        for stale in views.iterdir():
            if stale != current:
                shutil.rmtree(stale) if stale.is_dir() else stale.unlink(missing_ok=True)
    current.mkdir(parents=True, exist_ok=True)
    _views["folder"] = current
    return config


def _cached_search_view(html: str) -> str:
    path = _views["folder"] / f"{hashlib.sha256(html.encode()).hexdigest()}.html"
    if path.is_file():
        return path.read_text(encoding="utf-8")
    view = search_view(html)
    path.write_text(view, encoding="utf-8")
    return view


@event_priority(10)  # before Material's search plugin reads page.content
def _show_search_view(context, page, config, nav, **kwargs):
    setattr(page, _ORIGINAL, page.content)
    page.content = _cached_search_view(page.content or "")
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
