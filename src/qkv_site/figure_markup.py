"""A figure's code on its page, and a figure's Markdown when a build-time code block writes it.

Every figure of the site is drawn by `qkv_site.figures.<name>`; its caption ends with a link to that
code, folded under the figure (`code_block`), and to the file in the repository when the build knows
the repository. The plugin (`qkv_site.build.figures`) does this for the figures a page writes by hand; a figure whose alt
text or caption describes computed numbers is printed by a ``python exec="on"`` block with `figure`:
the same markup, the same block. Nothing here imports matplotlib.
"""

from __future__ import annotations

import html
import importlib.util
import os
import re
from pathlib import Path

import qkv_site

# The repository the figure modules are imported from (src/qkv_site/figures/… → its root): a build
# of a copy of the docs still links to the code that really drew its figures.
ROOT = Path(qkv_site.__file__).resolve().parents[2]
SOURCE_LABEL = {"zh": "绘图代码", "en": "Figure code"}
IN_REPOSITORY = {"zh": "仓库里的这个文件", "en": "This file in the repository"}
COLON = {"zh": "：", "en": ": "}
def source_path(name: str) -> Path:
    """The module that draws figure `name`: qkv_site.figures.<name> (tests/test_figures.py checks that
    each figure is drawn by the module of its name). It is found without importing it, so a build whose
    figures are current never loads matplotlib for its code."""
    spec = importlib.util.find_spec(f"qkv_site.figures.{name}") if name.isidentifier() else None
    if spec is None or spec.origin is None:
        raise ValueError(f"figures/{name}.*.svg is not one of the site's figures: no module qkv_site.figures.{name}")
    return Path(spec.origin).resolve()


def source_url(name: str, repo_url: str) -> str:
    """The repository address of the module that draws figure `name`."""
    return f"{repo_url.rstrip('/')}/blob/main/{source_path(name).relative_to(ROOT).as_posix()}"


def code_anchor(name: str) -> str:
    """The id of the folded block that holds the code of figure `name`."""
    return "figure-code-" + name.replace("_", "-")


def code_block(name: str, lang: str, repo_url: str | None) -> str:
    """The folded block (Markdown, for md_in_html) with the code that drew figure `name`."""
    path = source_path(name)
    code = path.read_text(encoding="utf-8").rstrip("\n")
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", code)), default=0))
    repository = ""
    if repo_url:
        repository = f'\n<p><a href="{html.escape(source_url(name, repo_url))}">{IN_REPOSITORY[lang]}</a></p>\n'
    return (
        f'<details class="example figure-code" id="{code_anchor(name)}" markdown="1">\n'
        f"<summary>{SOURCE_LABEL[lang]}{COLON[lang]}<code>{path.name}</code></summary>\n\n"
        f"{fence}python\n{code}\n{fence}\n{repository}\n</details>"
    )



def figure(name: str, lang: str, *, alt: str, caption: str) -> str:
    """``<figure>`` with figures/{name}.light.svg and .dark.svg, both with `alt`, and `caption` (Markdown,
    one line), followed by the folded block with its code.

    Printed by a code block, its output is not rewritten by MkDocs: the images are addressed from
    the page's URL (``…/<lang>/<page>/``), one folder below the language's ``figures/``.
    """
    if lang not in SOURCE_LABEL:
        raise ValueError(f"unknown language {lang!r}; choose one of {tuple(SOURCE_LABEL)}")
    for what, text in (("alt text", alt), ("caption", caption)):
        if not text.strip() or "\n" in text:
            raise ValueError(f"figure {name}: the {what} must be one non-empty line, got {text!r}")
    if re.search(r"[\[\]]", alt):
        raise ValueError(f"figure {name}: square brackets would end the image's alt text early: {alt!r}")
    link = f'<a class="figure-source" href="#{code_anchor(name)}">{SOURCE_LABEL[lang]}</a>'
    images = "\n".join(f"  ![{alt}](../figures/{name}.{scheme}.svg#only-{scheme})" for scheme in ("light", "dark"))
    block = code_block(name, lang, os.environ.get("REPO_URL") or None)  # a code block does not see MkDocs' config
    return f'<figure markdown="span">\n{images}\n  <figcaption markdown>{caption} {link}</figcaption>\n</figure>\n\n{block}'
