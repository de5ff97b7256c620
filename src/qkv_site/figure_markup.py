"""A figure's Markdown when its alt text or caption is written from data by a build-time code block.

A page normally writes its figures by hand (``<figure markdown="span">`` with a light and a dark
image), and `hooks/figures.py` ends each caption with a link to the code that drew it. A figure
whose alt text or caption describes computed numbers is printed by a ``python exec="on"`` block
instead, with `figure`: the same markup, the same link. Nothing here imports matplotlib.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import qkv_site

# The repository the figure modules are imported from (src/qkv_site/figures/… → its root): a build
# of a copy of the docs still links to the code that really drew its figures.
ROOT = Path(qkv_site.__file__).resolve().parents[2]
SOURCE_LABEL = {"zh": "绘图代码", "en": "Figure code"}
_REPO_URL = re.compile(r"^repo_url:\s*(\S+)\s*$", re.MULTILINE)


def source_url(name: str, repo_url: str) -> str:
    """The repository address of the module that draws figure `name`: qkv_site.figures.<name>
    (tests/test_figures.py checks that each figure is drawn by the module of its name). It is found
    without importing it, so a build whose figures are current never loads matplotlib for a link."""
    spec = importlib.util.find_spec(f"qkv_site.figures.{name}") if name.isidentifier() else None
    if spec is None or spec.origin is None:
        raise ValueError(f"figures/{name}.*.svg is not one of the site's figures: no module qkv_site.figures.{name}")
    path = Path(spec.origin).resolve().relative_to(ROOT)
    return f"{repo_url.rstrip('/')}/blob/main/{path.as_posix()}"


def repo_url(config: Path = ROOT / "mkdocs.yml") -> str:
    """The ``repo_url`` of the site's configuration (a code block does not see MkDocs' config)."""
    match = _REPO_URL.search(config.read_text(encoding="utf-8"))
    if not match:
        raise ValueError(f"{config} has no repo_url: the figures' captions link to their code there")
    return match.group(1)


def figure(name: str, lang: str, *, alt: str, caption: str) -> str:
    """``<figure>`` with figures/{name}.light.svg and .dark.svg, both with `alt`, and `caption` (Markdown, one line).

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
    link = f'<a class="figure-source" href="{source_url(name, repo_url())}">{SOURCE_LABEL[lang]}</a>'
    images = "\n".join(f"  ![{alt}](../figures/{name}.{scheme}.svg#only-{scheme})" for scheme in ("light", "dark"))
    return f'<figure markdown="span">\n{images}\n  <figcaption markdown>{caption} {link}</figcaption>\n</figure>'
