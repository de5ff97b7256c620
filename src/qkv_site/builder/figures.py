"""The site's figures: drawn from `qkv` into ``.cache/figures/`` (never into docs/), served as MkDocs'
generated files, each caption ending with a link to the code that drew it, folded under the figure.

- `draw`: before the files are collected. mkdocs-static-i18n builds once per language and `mkdocs
  serve` rebuilds on every change: when the stamps are current this is one hash, without even
  importing matplotlib.
- `generated_files`: each ``<lang>/figures/<name>.<scheme>.svg`` as a ``File.generated``, where
  mkdocs-static-i18n would put a file of that language (the default language at the site's root).
- `figure_macro`: what a page writes as ``{% call figure("name", alt="…") %}caption{% endcall %}``
  (pages with values are Jinja templates, `qkv_site.builder.page_values`): the whole figure, once.
  Every figure comes as a light and a dark image, and Material's CSS hides the one that is not the
  current scheme; a lazy image that is not displayed is never fetched, so a reader downloads only the
  figure of the scheme in view. Each image carries its drawn size, so the page keeps the figure's place
  before the file arrives. The caption ends with the link “绘图代码 / Figure code” to the folded block
  under the figure (`qkv_site.builder.figure_markup`), a ``details.example`` like “这一节是怎么算的 / How
  this section is computed”: the search index and print leave both out. When the build knows the
  repository (``repo_url``, from REPO_URL), the block links to the module there too.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File

from qkv_site.builder.figure_markup import SOURCE_LABEL, code_anchor, code_block, source_path
from qkv_site.figures.stamp import up_to_date
from qkv_site.project import Project

log = logging.getLogger("mkdocs.plugins.qkv_site")

FULL_WIDTH_ENDS = ("。", "！", "？", "）", "」", "；", "：")  # a Chinese caption's last character, when it is punctuation
_SVG_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)pt" height="([\d.]+)pt"')
PX_PER_PT = 96 / 72  # CSS pixels in a point: matplotlib writes an SVG's size in points


def drawn_languages(project: Project) -> tuple[str, ...]:
    """The languages whose figures the site shows: those with a folder of pages (docs/zh, docs/en)."""
    return tuple(lang for lang in project.languages if (project.docs_dir / lang).is_dir())


def draw(root: Path, project: Project) -> None:
    """Draw every figure of ``project`` into ``root/<lang>/figures/`` for each language the docs have
    pages in, unless the stamps say they are current. A site without language folders draws none."""
    languages = drawn_languages(project)
    if up_to_date(root, project, languages):
        log.info("figures: all up to date" if languages else "figures: no language folder in the docs, none drawn")
        return
    from qkv_site.figures.fonts import static_font_path
    from qkv_site.figures.registry import render_all  # matplotlib: only when something is drawn

    if not static_font_path().exists():
        log.info(f"figures: making the figure font once, a few seconds: {static_font_path()}")
    start = time.perf_counter()
    written = render_all(root, project, languages)
    log.info(f"figures: wrote {len(written)} SVG files in {time.perf_counter() - start:.1f} s")


def generated_files(config: MkDocsConfig, root: Path, project: Project) -> list[File]:
    """The drawn figures as files of the site, at the address each language's pages link to
    (mkdocs-static-i18n puts the default language's pages at the site's root)."""
    files = []
    for lang in project.languages:
        for path in sorted((root / lang / "figures").glob("*.svg")):
            file = File.generated(config, f"{lang}/figures/{path.name}", abs_src_path=str(path))
            dest = f"figures/{path.name}" if lang == project.default_language else f"{lang}/figures/{path.name}"
            file.dest_uri, file.url = dest, dest
            file.abs_dest_path = str(Path(config.site_dir) / dest)
            files.append(file)
    return files


def figure_macro(lang: str, repo_url: str | None, project: Project, figures: Path,
                 size: Callable[[Path], tuple[int, int]] | None = None) -> Callable[..., str]:
    """The page's ``figure`` for its Jinja values: ``{% call figure("name", alt="…") %}caption{% endcall %}``
    writes the whole figure once, at the top level of the page (not inside a list or a tab):

    - the light and the dark image, each with the alt text, loaded lazily and sized as its file in
      ``figures`` (the SVG files of the page's language) is drawn (`svg_size`, or ``size``), so the text
      below does not jump;
    - the caption (the call's body, Markdown), ending with the link “绘图代码 / Figure code”;
    - the folded block with the code that drew it (`code_block`), after the figure's first showing on the page.
    """
    if lang not in SOURCE_LABEL:
        raise ValueError(f"figures have captions in {sorted(SOURCE_LABEL)}, not {lang!r}")
    shown: set[str] = set()  # a figure shown twice on a page has its code once, after the first

    def figure(name: str, alt: str, caller: Callable[[], str] | None = None) -> str:
        if caller is None:
            raise ValueError(f'figure("{name}"): write it as {{% call figure("{name}", alt="…") %}}caption{{% endcall %}}')
        if not alt.strip() or any(mark in alt for mark in "[]\n"):
            raise ValueError(f'figure("{name}"): the alt text must be one line of words without [ or ], got {alt!r}')
        caption = caller().strip()
        if not caption:
            raise ValueError(f'figure("{name}"): the caption is empty')
        source_path(name)  # the figure is one of the site's: its module draws it
        images = []
        for scheme in ("light", "dark"):
            width, height = (size or svg_size)(figures / f"{name}.{scheme}.svg")
            src = f"figures/{name}.{scheme}.svg#only-{scheme}"
            images.append(f"  ![{alt}]({src}){{ loading=lazy width={width} height={height} }}")
        gap = "" if caption.endswith(FULL_WIDTH_ENDS) else " "  # no space after “。” in Chinese
        link = f'{gap}<a class="figure-source" href="#{code_anchor(name)}">{SOURCE_LABEL[lang]}</a>'
        caption_line = f"  <figcaption markdown>{caption}{link}</figcaption>"
        markup = "\n".join(['<figure markdown="span">', *images, caption_line, "</figure>"])
        if name not in shown:
            shown.add(name)
            markup += "\n\n" + code_block(name, lang, repo_url, project)
        return markup + "\n"  # a blank line after it, whatever follows the call (Jinja drops the newline after a tag)

    return figure


def svg_size(path: Path) -> tuple[int, int]:
    """The width and height, in CSS pixels, at which a drawn figure is shown (rounded)."""
    if not path.is_file():
        raise FileNotFoundError(f"a page shows the figure {path.name}, which was not drawn (looked in {path.parent})")
    with path.open(encoding="utf-8") as svg:
        head = svg.read(2000)  # matplotlib writes the <svg> element in its first few hundred characters
    size = _SVG_SIZE.search(head)
    if size is None:
        raise ValueError(f"{path}: no width and height in points on its <svg> element")
    width, height = (float(value) * PX_PER_PT for value in size.groups())
    return round(width), round(height)
