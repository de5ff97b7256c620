"""The site's own scripts and stylesheets, minified where they are published.

`docs/assets/` keeps them as they are read and tested (comments saying why, one statement a line);
the built site gets them without comments and needless whitespace (rjsmin and rcssmin, which change
nothing else), about half the bytes gzip: 5.5 KB on every page, 9 KB more on a page with the
playground. Material's own files are minified already and not touched (its stylesheet is trimmed to the rules
the site uses by `qkv_site.builder.material_styles`).

    >>> minified(".js", "// why\\nconst a = 1;  // how\\nexport { a };\\n")
    'const a=1;export{a};'
    >>> minified(".css", "/* why */\\n.a {\\n  color: red;\\n}\\n")
    '.a{color:red}'
"""

from __future__ import annotations

from pathlib import Path

import rcssmin
import rjsmin

ASSETS = "assets"
SUFFIXES = (".js", ".css")


def minified(suffix: str, text: str) -> str:
    """``text`` of a ``.js`` or ``.css`` file, minified."""
    if suffix == ".js":
        return str(rjsmin.jsmin(text))
    if suffix == ".css":
        return str(rcssmin.cssmin(text))
    raise ValueError(f"no minifier for {suffix!r} files: only {', '.join(SUFFIXES)}")


def own_assets(docs_dir: Path) -> list[Path]:
    """The site's own scripts and stylesheets under ``docs_dir/assets`` (paths relative to ``docs_dir``)."""
    folder = docs_dir / ASSETS
    return sorted(path.relative_to(docs_dir) for path in folder.rglob("*") if path.suffix in SUFFIXES and path.is_file())


def minify_published(docs_dir: Path, site_dir: Path) -> list[Path]:
    """Minify the published copy of every own script and stylesheet (each read from its source, so a
    second call writes the same bytes); the files written."""
    written = []
    for relative in own_assets(docs_dir):
        published = site_dir / relative
        if not published.is_file():
            raise FileNotFoundError(f"{relative} was not published to {site_dir}: the build did not copy it")
        text = minified(relative.suffix, (docs_dir / relative).read_text(encoding="utf-8"))
        published.write_text(text, encoding="utf-8")
        written.append(published)
    return written
