"""Serve MathJax 3 from the site itself: copy the one bundle and its fonts from a pinned package."""

from __future__ import annotations

import shutil
from pathlib import Path

import mathjax  # django-static-mathjax: MathJax 3.2.2 as package data

SOURCE = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
FILES = ["tex-chtml.js", "output/chtml/fonts/woff-v2"]


def on_post_build(config, **kwargs) -> None:
    target = Path(config.site_dir) / "assets" / "mathjax"
    for name in FILES:
        source, destination = SOURCE / name, target / name
        if source.is_dir():
            shutil.copytree(source, destination, dirs_exist_ok=True)
        else:
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
