"""One search index per language, holding the article's text only.

- Material's search plugin indexes ``page.content`` in its own ``on_page_context`` (priority 0). Just
  before it, the page's HTML is swapped for `qkv_site.search_text.search_view` (formulas as plain
  text, no display formulas, SVG or build-code tabs); just after it, the real HTML is put back.
- Making that view parses the page's HTML (about 6 MB for the whole site, most of it formula SVG),
  the slowest step of a rebuild: views are kept in ``.cache/search-view/``, keyed by the page's HTML,
  in a folder per `qkv_site.build_cache.process_digest` (a change to the code that makes them starts
  a new folder and deletes the old one).
- Chinese is cut into words by jieba (in Material's plugin); `qkv_site.search_words` writes jieba's
  user dictionary from the site's terms into ``.cache/search/`` and hands it to Material's
  ``jieba_dict_user`` option. The browser's copy of Material's search worker is corrected to cut a
  Chinese query into the same words (`qkv_site.material_search`, checked at start-up).
- mkdocs-static-i18n merges both languages into one ``search/search_index.json``, so a search on an
  English page counted (and listed) the Chinese pages too. After the last build, the index is split:
  the Chinese pages stay in ``search/``, the English ones move to ``en/search/`` with their locations
  relative to ``en/``, and every English page points Material (its ``__config`` ``base``, which Material
  reads the index and resolves the results' links from) at ``en/``. The English index gets Material's
  English pipeline (``ENGLISH_PIPELINE``), the Chinese one keeps the configured one; in both, exercise
  sections weigh less (``EXERCISE_BOOST``).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from mkdocs.plugins import CombinedEvent, event_priority

from qkv_site import material_search
from qkv_site.build_cache import process_digest
from qkv_site.cache_files import atomic_write, sweep
from qkv_site.search_text import search_view
from qkv_site.search_words import write_user_dictionary

ENGLISH = "en/"
# An exercise practises the sections of its page: a search lands on the explanation first (Material
# multiplies a section's score by its index entry's ``boost``, the field its ``search.boost`` front
# matter sets for a whole page; qkv_site.material_search checks the worker reads it). Exercise sections
# are those with the anchors the README's recipe gives.
EXERCISE_BOOST = 0.5
_EXERCISE = re.compile(r"#exercises?(?:-\d+)?$")
# Material's own pipeline for English (partials/languages/en.html): no stemmer, since Material searches
# every query word as a prefix (``scaling*``), which an index of stems (``scale``) never holds.
ENGLISH_PIPELINE = ["stopWordFilter"]
_ORIGINAL = "_qkv_html_before_search"
_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.DOTALL)


def _is_english(page) -> bool:
    return page.file.src_uri.startswith(ENGLISH)


_views: dict = {"folder": None}


def _search_plugin(config):
    for name in ("material/search", "search"):
        if name in config.plugins:
            return config.plugins[name]
    raise ValueError("mkdocs.yml: Material's search plugin is not configured; the search hook needs it")


@event_priority(50)  # before Material's search plugin reads its jieba_dict_user option
def on_config(config, **kwargs):
    material_search.check()
    root = Path(config.config_file_path).resolve().parent
    search = _search_plugin(config)
    dictionary = root / ".cache" / "search" / "jieba-user-dict.txt"
    if search.config.jieba_dict_user not in (None, str(dictionary)):
        raise ValueError(f"mkdocs.yml sets the search plugin's jieba_dict_user ({search.config.jieba_dict_user}); "
                         "the search hook makes that dictionary from the site's terms (qkv_site.search_words)")
    write_user_dictionary(dictionary)
    search.config.jieba_dict_user = str(dictionary)
    views = root / ".cache" / "search-view"
    current = views / process_digest()[:16]
    sweep(views, keep=current)  # views made by other code can never be used again
    _views["folder"] = current
    return config


def _cached_search_view(html: str) -> str:
    path = _views["folder"] / f"{hashlib.sha256(html.encode()).hexdigest()}.html"
    if path.is_file():
        return path.read_text(encoding="utf-8")
    view = search_view(html)
    atomic_write(path, view)
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
    for doc in index["docs"]:
        if _EXERCISE.search(doc["location"]):
            doc["boost"] = doc.get("boost", 1) * EXERCISE_BOOST
    chinese = [doc for doc in index["docs"] if not doc["location"].startswith(ENGLISH)]
    english = [{**doc, "location": doc["location"][len(ENGLISH):]} for doc in index["docs"] if doc["location"].startswith(ENGLISH)]
    _write(path, {**index, "docs": chinese})
    english_config = {**index["config"], "lang": ["en"], "pipeline": ENGLISH_PIPELINE}
    _write(site / ENGLISH / "search" / "search_index.json", {**index, "config": english_config, "docs": english})
    material_search.correct_worker(site)


def _write(path: Path, index: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
