"""A small site of two pages (zh and en) that show both learned-attention widgets, built with the site's own
plugin, theme, scripts and stylesheets: the widget's test page, apart from the article's pages."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from build_support import build_site
from repository import ROOT, the_project

from qkv.learning import referent_sentences as r
from qkv.learning import sentences as s
from qkv_site.project import RESULTS_DIR

RESULTS = ROOT / RESULTS_DIR  # the committed learned models, which the widget's test site serves too

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


def sentences() -> list[tuple[str, str, str]]:
    """(task, sentence, what training saw of it): the article's pair, held-out and training sentences of both
    tasks (their split as qkv.learning makes it), and forms of the reader's own."""
    held, train = s.corpus(heldout=True).text, s.corpus(heldout=False).text
    ref_held, ref_train = r.corpus(heldout=True), r.corpus(heldout=False).sentences.text
    chosen = [("coreference", x, "triple") for x in (s.ARTICLE_SENTENCE, s.ARTICLE_TWIN, *held[::97])]
    chosen += [("coreference", x, "train") for x in train[::613]]
    chosen += [("coreference", "it was too icy because the goat didn't cross the bridge", "other")]
    chosen += [("referent", x, "other") for x in r.PROBES]  # two nouns, no object: in neither set
    chosen += [("referent", x, "train") for x in ref_train[::1499]]
    chosen += [("referent", ref_held.sentences.text[i], kind) for kind in ("referent", "pair", "both")
               for i in [j for j, k in enumerate(ref_held.kinds) if k == kind][:3]]
    chosen += [("referent", "the box and the dog stayed on the road because it was too fragile", "other")]
    return chosen
