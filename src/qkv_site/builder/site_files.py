"""Files the build adds to the built site beyond the pages: the sitemap's notebook pages, the 404 page of
each language, the emoji font.

- mkdocs-static-i18n (1.3.1) writes the sitemap from the documentation pages of each language it keeps
  in ``i18n_files_per_language`` (its ``on_files``, priority -100). It makes its own ``File`` objects,
  and for a notebook that is a plain ``File`` whose ``is_documentation_page()`` is false
  (mkdocs-jupyter's ``NotebookFile`` says true), so docs/<lang>/notebook.ipynb was missing. Right after
  it, the list is made again with the notebooks in it, in the same order (`list_notebooks_in_sitemap`;
  the internal is checked by `compat.check_i18n`). overrides/sitemap.xml is the plugin's template, left
  empty when there is no site_url.
- mkdocs-static-i18n renders the theme's 404.html once per language, every time into the site's root,
  so the root kept the last language's (English) under the Chinese site. `error_page_per_language`
  keeps the default language's there and writes each other language's into its folder (en/404.html);
  overrides/404.html sends a reader whose missing address is under that folder on to it.
- The site's emoji font (qkv_site.builder.emoji_font) holds the glyphs of every emoji the pages of both
  languages show (`EmojiFont`), noted from each page's HTML as it is written; the font is made in well
  under a second, once per set of emoji, and written into the built site only, after the last language.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files

from qkv_site.builder import compat, emoji_font
from qkv_site.builder.emoji_font import SITE_PATH, emoji_in, font_for
from qkv_site.cache_files import atomic_write, files_digest, sweep


def list_notebooks_in_sitemap(files: Files, config: MkDocsConfig) -> None:
    i18n: Any = config.plugins.get("i18n")
    if i18n is None:
        return
    compat.check_i18n(i18n)
    pages = [file for file in files if file.is_documentation_page() or file.src_uri.endswith(".ipynb")]
    getattr(i18n, compat.I18N_FILES_PER_LANGUAGE)[i18n.current_language] = pages


def error_page_per_language(output: str, template_name: str, config: MkDocsConfig) -> str:
    """What MkDocs writes into the site's root for ``template_name``: a 404 page of a language other
    than the default one goes into that language's folder instead (and nothing into the root)."""
    i18n: Any = config.plugins.get("i18n")
    if template_name != "404.html" or i18n is None:
        return output
    compat.check_i18n(i18n)
    if getattr(i18n, compat.I18N_DEFAULT_BUILD):
        return output
    atomic_write(Path(config.site_dir) / i18n.current_language / template_name, output.encode("utf-8"))
    return ""  # MkDocs writes a template only when it rendered something


class EmojiFont:
    """The emoji font of the pages as this process last rendered them, made once per set of emoji.

    Each page's emoji are noted from its HTML page as it is written (`note`), in every language's pass:
    a notebook's come from the HTML mkdocs-jupyter made of it, outputs included. A page not rendered
    again by a ``mkdocs serve --dirty`` rebuild keeps the emoji it had.

    >>> font = EmojiFont()
    >>> font.note("zh/a.md", "<h1>📌 深入理解</h1>")
    >>> font.note("en/a.md", "<td>&#x2705;</td><td>√ ×</td>")
    >>> font.chars()
    ['✅', '📌']
    """

    def __init__(self, cache: Path | None = None) -> None:
        self.pages: dict[str, str] = {}  # a page's src_uri → the emoji of its HTML
        self.cache = cache  # a folder keeping the last font made, under the digest of what made it


    def note(self, src_uri: str, page_html: str) -> None:
        self.pages[src_uri] = "".join(emoji_in([html.unescape(page_html)]))  # a character reference shows one too

    def chars(self) -> list[str]:
        """The emoji of every page noted, sorted."""
        return emoji_in(self.pages.values())

    def write(self, config: MkDocsConfig) -> None:
        target = Path(config.site_dir) / SITE_PATH
        if not (target.parent.parent / "stylesheets").is_dir():
            return  # mkdocs-static-i18n's build of another language: its pages use the site root's assets
        atomic_write(target, self.font())

    def font(self) -> bytes:
        """The font of the noted pages' emoji: made by `font_for`, or read from the cache when the same
        characters were cut by the same code and libraries before."""
        chars = self.chars()
        if self.cache is None:
            return font_for(chars)
        made_by = [("emoji_font.py", Path(emoji_font.__file__))]
        kept = self.cache / files_digest(made_by, ["fonttools", "manimgx-fonts"], chars)[:16] / "emoji.woff"
        if kept.is_file():
            return kept.read_bytes()
        sweep(self.cache, keep=kept.parent)
        font = font_for(chars)
        atomic_write(kept, font)
        return font
