"""Draw the site's figures from `qkv` into docs/{lang}/figures/ before MkDocs collects the files,
and put the code that drew each figure on its page: folded under the figure (its module,
src/qkv_site/figures/<name>.py, read when the page is built), linked from the end of the caption.

The folded block is a ``details.example``, like “这一节是怎么算的 / How this section is computed”:
the search index leaves both out (qkv_site.search_text), and print leaves them out. When the build
knows the repository (``repo_url``, from REPO_URL), the block links to the module there too.
"""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

from qkv_site.figure_markup import SOURCE_LABEL, code_anchor, code_block  # shared with figures printed by code blocks
from qkv_site.figures.stamp import up_to_date

log = logging.getLogger("mkdocs.hooks.figures")

_FIGURE = re.compile(r"<figure\b.*?</figure>", re.DOTALL)
_IMAGE = re.compile(r"\(figures/(\w+)\.light\.svg#only-light\)")


def on_pre_build(config, **kwargs) -> None:
    # mkdocs-static-i18n builds once per language and `mkdocs serve` rebuilds on every change:
    # when the stamps are current this is one hash, without even importing matplotlib.
    docs = Path(config.docs_dir)
    if up_to_date(docs):
        log.info("figures: all up to date")
        return
    from qkv_site.figures.fonts import static_font_path
    from qkv_site.figures.registry import render_all

    if not static_font_path().exists():
        log.info(f"figures: making the figure font once, a few seconds: {static_font_path()}")
    start = time.perf_counter()
    written = render_all(docs)
    log.info(f"figures: wrote {len(written)} SVG files in {time.perf_counter() - start:.1f} s")


def on_page_markdown(markdown: str, page, config, **kwargs) -> str:
    lang = page.file.src_uri.split("/", 1)[0]
    if lang not in SOURCE_LABEL:
        return markdown

    shown: set[str] = set()  # a figure shown twice on a page has its code once, after the first

    def link_source(figure: re.Match[str]) -> str:
        block = figure.group(0)
        image = _IMAGE.search(block)
        if not image or "</figcaption>" not in block:
            raise ValueError(f"{page.file.src_uri}: a figure without a light-scheme image or a caption:\n{block}")
        name = image.group(1)
        link = f' <a class="figure-source" href="#{code_anchor(name)}">{SOURCE_LABEL[lang]}</a>'
        block = block.replace("</figcaption>", link + "</figcaption>")
        if name in shown:
            return block
        shown.add(name)
        # The figure's own indentation, so that the block stays where the figure is (a list, a tab).
        indent = markdown[markdown.rfind("\n", 0, figure.start()) + 1: figure.start()]
        indent = indent if indent.isspace() else ""
        code = code_block(name, lang, config.repo_url).split("\n")
        return block + "\n\n" + "\n".join(indent + line if line else line for line in code)

    return _FIGURE.sub(link_source, markdown)


_SCHEME_IMAGE = re.compile(r'<img (?=[^>]*src="[^"]*figures/\w+\.(?:light|dark)\.svg#only-(?:light|dark)")')


def on_page_content(html_text: str, page, **kwargs) -> str:
    # Every figure comes as a light and a dark image, and Material's CSS hides the one that is not
    # the current scheme (its palette toggle, or the reader's system). A lazy image that is not
    # displayed is never fetched: a reader downloads only the figure of the scheme in view, and the
    # other one when the toggle shows it.
    return _SCHEME_IMAGE.sub('<img loading="lazy" ', html_text)
