"""A small site of two pages (zh and en) that show both learned-attention widgets, built with the site's own
plugin, theme, scripts and stylesheets: the widget's test page, apart from the article's pages."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from conftest import ROOT, build_site, the_project

PAGE = {
    "zh": "---\ndescription: 学到的注意力，在读者的浏览器里运行。\n---\n\n# 自己的句子\n\n"
          '<div class="qkv-learned-widget" data-model="coreference"></div>\n\n'
          '<div class="qkv-learned-widget" data-model="referent"></div>\n',
    "en": "---\ndescription: The learned attention, run in the reader's browser.\n---\n\n# Your own sentence\n\n"
          '<div class="qkv-learned-widget" data-model="coreference"></div>\n\n'
          '<div class="qkv-learned-widget" data-model="referent"></div>\n',
}


def widget_site(folder: Path) -> Path:
    """Build the test site into ``folder / "site"`` and return that folder (a failed build raises)."""
    docs = folder / "docs"
    shutil.copytree(ROOT / "docs" / "assets", docs / "assets", dirs_exist_ok=True)
    for lang, text in PAGE.items():
        (docs / lang).mkdir(parents=True, exist_ok=True)
        (docs / lang / "index.md").write_text(text.replace("# ", "# Home ", 1), encoding="utf-8")
        (docs / lang / "widget.md").write_text(text, encoding="utf-8")
    config = folder / "mkdocs.yml"
    config.write_text(textwrap.dedent(f"""\
        site_name: learned widget
        strict: true
        theme:
          name: material
          language: zh
          font: false
          palette:
            - media: "(prefers-color-scheme: light)"
              scheme: default
            - media: "(prefers-color-scheme: dark)"
              scheme: slate
        plugins:
          - i18n:
              docs_structure: folder
              languages:
                - {{locale: zh, name: 中文, default: true, build: true}}
                - {{locale: en, name: English, build: true}}
          - qkv-site:
              results_dir: {the_project().results_dir}
        markdown_extensions: [toc, attr_list, md_in_html]
        extra_javascript:
          - path: assets/javascripts/learned/load.js
            type: module
        extra_css:
          - assets/stylesheets/extra.css
        nav: [index.md, widget.md]
        """), encoding="utf-8")
    result = build_site(folder / "site", config, deploy_env=False)
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    return folder / "site"
