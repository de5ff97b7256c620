"""A figure's code on its page: every figure of the site is drawn by `qkv_site.figures.<name>`; its
caption ends with a link to that code, folded under the figure (`code_block`, put there by
`qkv_site.builder.figures`), and to the file in the repository when the build knows it. Nothing here
imports matplotlib.
"""

from __future__ import annotations

import html
import importlib.util
import re
from pathlib import Path

from qkv_site.project import Project

SOURCE_LABEL = {"zh": "绘图代码", "en": "Figure code"}
IN_REPOSITORY = {"zh": "仓库里的这个文件", "en": "This file in the repository"}
COLON = {"zh": "：", "en": ": "}
def source_path(name: str) -> Path:
    """The module that draws figure `name`: qkv_site.figures.<name> (tests/build/test_figures.py checks that
    each figure is drawn by the module of its name). It is found without importing it, so a build whose
    figures are current never loads matplotlib for its code."""
    spec = importlib.util.find_spec(f"qkv_site.figures.{name}") if name.isidentifier() else None
    if spec is None or spec.origin is None:
        raise ValueError(f"figures/{name}.*.svg is not one of the site's figures: no module qkv_site.figures.{name}")
    return Path(spec.origin).resolve()


def source_url(name: str, repo_url: str, project: Project) -> str:
    """The repository address of the module that draws figure `name`: its file under the project's package
    sources (`Project.src_dir`, ``src/qkv_site/figures/<name>.py``), which must be there."""
    path = project.src_dir / "qkv_site" / "figures" / f"{name}.py"
    if not path.is_file():
        raise ValueError(f"figure {name}: its module is not in the project's sources ({path} is missing), "
                         "so it has no address in the repository")
    return f"{repo_url.rstrip('/')}/blob/main/{path.relative_to(project.root).as_posix()}"


def code_anchor(name: str) -> str:
    """The id of the folded block that holds the code of figure `name`."""
    return "figure-code-" + name.replace("_", "-")


def code_block(name: str, lang: str, repo_url: str | None, project: Project) -> str:
    """The folded block (Markdown, for md_in_html) with the code that drew figure `name`, and a link to
    the file in the repository when the build knows one (``repo_url``)."""
    path = source_path(name)
    code = path.read_text(encoding="utf-8").rstrip("\n")
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", code)), default=0))
    repository = ""
    if repo_url:
        repository = f'\n<p><a href="{html.escape(source_url(name, repo_url, project))}">{IN_REPOSITORY[lang]}</a></p>\n'
    return (
        f'<details class="example figure-code" id="{code_anchor(name)}" markdown="1">\n'
        f"<summary>{SOURCE_LABEL[lang]}{COLON[lang]}<code>{path.name}</code></summary>\n\n"
        f"{fence}python\n{code}\n{fence}\n{repository}\n</details>"
    )
