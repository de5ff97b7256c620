"""The one place where the site reaches into Material for MkDocs' search, pinned to mkdocs-material 9.8.2.

Material's search worker segments a Chinese query in the browser greedily against the words of the
index (``segment`` in ``integrations/search/query/segment``): for each position of the query it
looks for the longest word of the index that starts there. Its loop stops one character short of
the end of the query (``for (let j = i + 1; j < query.length; j++)``), so the whole query is never
looked up and its last character never belongs to a word: 缩放 is searched as 缩 (and finds 缩小),
点积 as 点, 为什么除以 as 为什么. A word of one character left at the end is dropped the same way
(``q < query.length - 1``). Material offers no option for this, so the built site's copy of the
worker is corrected: both bounds reach the end of the query. Nothing else in the worker changes.

qkv_site.builder.search_index also gives an index entry a ``boost`` (exercise sections weigh less): the worker
adds each entry to lunr with it (``this.add(doc, { boost: doc.boost })``), which Material's own
``search.boost`` front matter relies on; `check` makes sure the worker still does (``READS_BOOST``).

`check` runs when the build starts: it stops the build, naming what it missed, when the installed
Material is not the pinned version or its worker no longer holds the code that is corrected or read.
"""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

PINNED = "9.8.2"
# The worker as Material 9.8.2 ships it, relative to the theme's folder and to the built site.
WORKER = Path("assets/javascripts/workers/search.a7633da7.min.js")
# (what the minified worker says, what the built site's copy says instead)
CORRECTIONS = (
    # every substring t.slice(s, o) of the query, up to and including its last character
    ("for(let o=s+1;o<t.length;o++)t.slice(s,o)in e&&(n[s]=o-s)", "for(let o=s+1;o<=t.length;o++)t.slice(s,o)in e&&(n[s]=o-s)"),
    # a word that starts at the query's last character is kept too
    ("n[a]&&a<t.length-1&&(i[s++]=a)", "n[a]&&a<t.length&&(i[s++]=a)"),
)
# The worker adds every index entry with its boost.
READS_BOOST = "for(let o of r)this.add(o,{boost:o.boost})"

# The segmenting function in the minified worker (its name is the minifier's): for the tests, which run it.
SEGMENT_FUNCTION = re.compile(
    r'function (\w+)\(t,e\)\{let r=new Set,n=new Uint16Array\(t\.length\);.*?return r\.has\(""\)\?new Set\(\[t\]\):r\}'
)


class MaterialChanged(RuntimeError):
    """The installed Material is not the one this module was written for."""


def theme_worker() -> Path:
    """Material's own copy of the search worker (in the installed package)."""
    import material

    return Path(material.__file__).resolve().parent / "templates" / WORKER


def corrected(source: str, where: str = "Material's search worker") -> str:
    """The worker's code with the query segmentation corrected; each piece must occur exactly once."""
    for wrong, right in CORRECTIONS:
        if source.count(wrong) != 1:
            raise MaterialChanged(
                f"{where} holds {source.count(wrong)} copies of {wrong!r} (mkdocs-material {PINNED} holds one): "
                f"qkv_site.builder.material_search corrects Chinese query segmentation for that version only"
            )
        source = source.replace(wrong, right)
    return source


def check() -> None:
    """Stop when Material is not the pinned version or its worker lacks the code corrected or read here."""
    installed = version("mkdocs-material")
    if installed != PINNED:
        raise MaterialChanged(
            f"mkdocs-material {installed} is installed; qkv_site.builder.material_search is written for {PINNED} "
            "(pyproject.toml pins it)"
        )
    worker = theme_worker()
    if not worker.is_file():
        raise MaterialChanged(f"mkdocs-material {PINNED} has no search worker at {worker}")
    source = worker.read_text(encoding="utf-8")
    corrected(source, str(worker))
    if READS_BOOST not in source:
        raise MaterialChanged(f"{worker} no longer holds {READS_BOOST!r}: an index entry's boost may be ignored")


def correct_worker(site_dir: Path) -> Path:
    """Correct the built site's copy of the worker (copied there from the theme); returns its path."""
    path = Path(site_dir) / WORKER
    if not path.is_file():
        raise MaterialChanged(f"the built site has no search worker at {path}")
    source = path.read_text(encoding="utf-8")
    if all(right in source and wrong not in source for wrong, right in CORRECTIONS):
        return path  # already corrected (mkdocs serve rebuilds into the same folder)
    path.write_text(corrected(source, str(path)), encoding="utf-8")
    return path
