"""The site's figures: drawn from `qkv` into ``.cache/figures/`` (never into docs/), served as MkDocs'
generated files, each caption ending with a link to the code that drew it, folded under the figure.

- `draw`: before the files are collected. mkdocs-static-i18n builds once per language and `mkdocs
  serve` rebuilds on every change: when the stamps are current this is one hash, without even
  importing matplotlib.
- `generated_files`: each ``<lang>/figures/<name>.<scheme>.svg`` as a ``File.generated``, where
  mkdocs-static-i18n would put a file of that language (the default language at the site's root).
- `with_code`: the caption's “绘图代码 / Figure code” link and the folded block (`qkv_site.builder.figure_markup`).
  The block is a ``details.example``, like “这一节是怎么算的 / How this section is computed”: the
  search index and print leave both out. When the build knows the repository (``repo_url``, from
  REPO_URL), the block links to the module there too.
- `lazy_and_sized`: every figure comes as a light and a dark image, and Material's CSS hides the one
  that is not the current scheme. A lazy image that is not displayed is never fetched: a reader
  downloads only the figure of the scheme in view. Each image carries its drawn size, so the page
  keeps the figure's place before the file arrives and the text below it does not jump when it does.
"""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File

from qkv_site.builder.figure_markup import SOURCE_LABEL, code_anchor, code_block
from qkv_site.figures.stamp import up_to_date
from qkv_site.project import Project

log = logging.getLogger("mkdocs.plugins.qkv_site")

_FIGURE = re.compile(r"<figure\b.*?</figure>", re.DOTALL)
_IMAGE = re.compile(r"\(figures/(\w+)\.light\.svg#only-light\)")
FULL_WIDTH_ENDS = ("。", "！", "？", "）", "」", "；", "：")  # a Chinese caption's last character, when it is punctuation
_SCHEME_IMAGE = re.compile(r'<img (?=[^>]*src="[^"]*figures/(\w+\.(?:light|dark))\.svg#only-(?:light|dark)")')
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


def with_code(markdown: str, src_uri: str, repo_url: str | None, project: Project) -> str:
    """``markdown`` with each figure's caption linked to the folded code that drew it (its repository
    link is the module's file in ``project``)."""
    lang = src_uri.split("/", 1)[0]
    if lang not in SOURCE_LABEL:
        return markdown
    shown: set[str] = set()  # a figure shown twice on a page has its code once, after the first

    def link_source(figure: re.Match[str]) -> str:
        block = figure.group(0)
        image = _IMAGE.search(block)
        if not image or "</figcaption>" not in block:
            raise ValueError(f"{src_uri}: a figure without a light-scheme image or a caption:\n{block}")
        name = image.group(1)
        caption_end = block[: block.index("</figcaption>")].rstrip()
        gap = "" if caption_end.endswith(FULL_WIDTH_ENDS) else " "  # no space after “。” in Chinese
        link = f'{gap}<a class="figure-source" href="#{code_anchor(name)}">{SOURCE_LABEL[lang]}</a>'
        block = caption_end + block[block.index("</figcaption>"):].replace("</figcaption>", link + "</figcaption>", 1)
        if name in shown:
            return block
        shown.add(name)
        # The figure's own indentation, so that the block stays where the figure is (a list, a tab).
        indent = markdown[markdown.rfind("\n", 0, figure.start()) + 1: figure.start()]
        indent = indent if indent.isspace() else ""
        code = code_block(name, lang, repo_url, project).split("\n")
        return block + "\n\n" + "\n".join(indent + line if line else line for line in code)

    return _FIGURE.sub(link_source, markdown)


def svg_size(path: Path) -> tuple[int, int]:
    """The width and height, in CSS pixels, at which a drawn figure is shown (rounded)."""
    with path.open(encoding="utf-8") as svg:
        head = svg.read(2000)  # matplotlib writes the <svg> element in its first few hundred characters
    size = _SVG_SIZE.search(head)
    if size is None:
        raise ValueError(f"{path}: no width and height in points on its <svg> element")
    width, height = (float(value) * PX_PER_PT for value in size.groups())
    return round(width), round(height)


def lazy_and_sized(html: str, figures: Path) -> str:
    """Every scheme's figure image loaded only when it is shown, with the size it is drawn at (the
    SVG files of the page's language are in ``figures``)."""

    def attributes(image: re.Match[str]) -> str:
        path = figures / f"{image.group(1)}.svg"
        if not path.is_file():
            raise FileNotFoundError(f"a page shows the figure {path.name}, which was not drawn (looked in {figures})")
        width, height = svg_size(path)
        return f'<img loading="lazy" width="{width}" height="{height}" '

    return _SCHEME_IMAGE.sub(attributes, html)
