"""One search index per language, holding the article's text only (the plugin's search steps).

- Material's search plugin indexes ``page.content`` in its own ``on_page_context`` (priority 0). Just
  before it, the page's HTML is swapped for `qkv_site.search.text.search_view` (formulas as plain
  text, no display formulas, SVG or build-code tabs); just after it, the real HTML is put back.
- Making that view parses the page's HTML (about 6 MB for the whole site, most of it formula SVG),
  the slowest step of a rebuild: views are kept in ``.cache/search-view/``, keyed by the page's HTML,
  in a folder per `qkv_site.builder.block_cache.process_digest` (a change to the code that makes them starts
  a new folder and deletes the old one).
- Chinese is cut into words by jieba (in Material's plugin); `qkv_site.search.words` writes jieba's
  user dictionary from the site's terms into ``.cache/search/`` and hands it to Material's
  ``jieba_dict_user`` option. The browser's copy of Material's search worker is corrected to cut a
  Chinese query into the same words, among other things (`qkv_site.builder.compat.WORKER_CORRECTIONS`,
  checked at start-up). Material marks the cuts in a result's text with a zero-width space, which a
  reader copying the text copied too: the index marks them with ``<wbr/>`` instead, an empty element
  that Material's worker splits words at (`qkv_site.builder.compat.WORKER_READS`) and that copies as nothing.
- Each entry gets the words it is searched by besides its heading and text (`qkv_site.search.names`,
  from what the plugin records of each page in `SearchPages`).
- mkdocs-static-i18n merges both languages into one ``search/search_index.json``, so a search on an
  English page counted (and listed) the Chinese pages too. After the last build, the index is split:
  the Chinese pages stay in ``search/``, the English ones move to ``en/search/`` with their locations
  relative to ``en/``, and every English page points Material (its ``__config`` ``base``, which Material
  reads the index and resolves the results' links from) at ``en/``. The English index gets Material's
  English pipeline (``ENGLISH_PIPELINE``), the Chinese one keeps the configured one; in both, exercise
  sections weigh less (``EXERCISE_BOOST``) and a page's own entry weighs ``PAGE_BOOST``.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig

from qkv_site.builder.block_cache import process_digest
from qkv_site.cache_files import atomic_write, files_digest, sweep
from qkv_site.project import Project
from qkv_site.search import material_worker
from qkv_site.search.names import SearchPage, add_names
from qkv_site.search.text import search_view
from qkv_site.search.words import quiet_jieba, write_user_dictionary

ENGLISH = "en/"
# An exercise practises the sections of its page: a search lands on the explanation first (Material
# multiplies a section's score by its index entry's ``boost``, the field its ``search.boost`` front
# matter sets for a whole page; qkv_site.builder.compat checks the worker reads it), yet an exercise whose
# heading is typed in full still comes first (at 0.5, “Exercise 2: add a causal mask” came after the
# section on skipping the masked tiles). Exercise sections are those with the anchors the README's recipe gives.
EXERCISE_BOOST = 0.6
_EXERCISE = re.compile(r"#exercises?(?:-\d+)?$")
# Material multiplies an entry's score by 1 + (p + f)², f the share of the query's words it holds and p
# 1 for a page's own entry (its title and the text before its first section), 0 for a section: up to 5
# against 2, so a page holding some of the words came before the section holding them all (“Notes”
# listed “Corrections and editor's notes” and its section before the section “Notes”). At half, a page
# holding every word still leads (2.5 against 2), one holding half of them no longer does (1.6).
PAGE_BOOST = 0.5
# How Material's plugin marks the cuts between Chinese words (``_segment_chinese``), and what the index holds instead.
WORD_CUT, WORD_BREAK = "\u200b", "<wbr/>"
# Material's own pipeline for English (partials/languages/en.html): no stemmer, since Material searches
# every query word as a prefix (``scaling*``), which an index of stems (``scale``) never holds.
ENGLISH_PIPELINE = ["stopWordFilter"]
_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.DOTALL)


def is_english(src_uri: str) -> bool:
    return src_uri.startswith(ENGLISH)


def _search_plugin(config: MkDocsConfig) -> Any:
    for name in ("material/search", "search"):
        if name in config.plugins:
            return config.plugins[name]
    raise ValueError("mkdocs.yml: Material's search plugin is not configured; the site's search needs it")


class SearchPages:
    """What the index needs to know of each page and does not hold, by URL: kept across the builds of
    both languages (mkdocs-static-i18n builds each language in turn) and the rebuilds of ``mkdocs serve``."""

    def __init__(self) -> None:
        self.pages: dict[str, SearchPage] = {}

    def record(self, src_uri: str, url: str, nav_title: str, description: str) -> None:
        """A page as MkDocs gives it (``src_uri``: ``en/glossary.md``)."""
        lang, source = src_uri.split("/", 1)  # mkdocs-static-i18n's folders: zh/…, en/…
        self.pages[url] = SearchPage(url, lang, source, nav_title, description)


class SearchViews:
    """The search view of each page's HTML, kept in ``.cache/search-view/<code digest>/``."""

    def __init__(self, cache: Path, project: Project) -> None:
        self.folder = cache / "search-view" / process_digest(project)[:16]
        sweep(self.folder.parent, keep=self.folder)  # views made by other code can never be used again

    def view(self, html: str) -> str:
        path = self.folder / f"{hashlib.sha256(html.encode()).hexdigest()}.html"
        if path.is_file():
            return path.read_text(encoding="utf-8")
        view = search_view(html)
        atomic_write(path, view)
        return view


def configure(config: MkDocsConfig, cache: Path, project: Project) -> SearchViews:
    """Give Material's search plugin the site's jieba dictionary; return the views' cache.

    The dictionary is kept in ``.cache/search/<digest>/``, keyed by the code (the site's terms and the
    rule that picks the words) and jieba's version: making it loads jieba's own dictionary, which takes
    longer than the rest of a cached build's search set-up.
    """
    search = _search_plugin(config)
    folder = cache / "search" / files_digest([], libraries=["jieba"], extra=[process_digest(project)])[:16]
    dictionary = folder / "jieba-user-dict.txt"
    if search.config.jieba_dict_user not in (None, str(dictionary)):
        raise ValueError(f"mkdocs.yml sets the search plugin's jieba_dict_user ({search.config.jieba_dict_user}); "
                         "the build makes that dictionary from the site's terms (qkv_site.search.words)")
    quiet_jieba()
    sweep(folder.parent, keep=folder)
    if not dictionary.is_file():
        write_user_dictionary(dictionary)
    search.config.jieba_dict_user = str(dictionary)
    return SearchViews(cache, project)


def point_english_page_at_its_index(output: str, src_uri: str) -> str:
    """An English page's ``__config`` with Material's ``base`` at ``en/``, where its index is."""
    if not is_english(src_uri):
        return output
    match = _CONFIG.search(output)
    if not match:
        raise ValueError(f"{src_uri}: Material's __config script is missing, cannot point search at {ENGLISH}")
    app = json.loads(match[2])
    app["base"] = app["base"].rstrip("/") + "/" + ENGLISH
    return output[: match.start(2)] + json.dumps(app, ensure_ascii=False, separators=(",", ":")) + output[match.end(2):]


def split_index(site: Path, pages: list[SearchPage]) -> None:
    """Split the merged index into one per language, with the entries' other names and their weights; correct the worker."""
    path = site / "search" / "search_index.json"
    index = json.loads(path.read_text(encoding="utf-8"))
    add_names(index, pages)
    for doc in index["docs"]:
        if _EXERCISE.search(doc["location"]):
            doc["boost"] = doc.get("boost", 1) * EXERCISE_BOOST
        if "#" not in doc["location"]:
            doc["boost"] = doc.get("boost", 1) * PAGE_BOOST
        for field in ("title", "text"):
            doc[field] = doc[field].replace(WORD_CUT, WORD_BREAK)
    chinese = [doc for doc in index["docs"] if not is_english(doc["location"])]
    english = [{**doc, "location": doc["location"][len(ENGLISH):]} for doc in index["docs"] if is_english(doc["location"])]
    _write(path, {**index, "docs": chinese})
    english_config = {**index["config"], "lang": ["en"], "pipeline": ENGLISH_PIPELINE}
    _write(site / ENGLISH / "search" / "search_index.json", {**index, "config": english_config, "docs": english})
    material_worker.correct_worker(site)


def _write(path: Path, index: dict[str, Any]) -> None:
    atomic_write(path, json.dumps(index, ensure_ascii=False, separators=(",", ":")))
