"""The values of the home page: the size of the worked example its reading path describes, the reading
path itself, every page of the nav in order with its titles in the language being built, and the files the
site serves for download (`qkv_site.downloads`) with their sizes and sha256 and the names its
instructions use.

The reading path is the nav the build hands over (`qkv_site.site_nav.SiteNav`, ``TAKES_NAV``), so a page
added to the nav appears on the home page at the next build; the home page gives each page a line of its
own, and a nav page without one stops the build (the pages' Jinja has strict undefined names). The
downloads are kept in their own cache, keyed by their own inputs (`qkv_site.downloads.made`), which the
page values' key does not hold, so these values are computed at every build (`KEPT_BETWEEN_BUILDS`).

>>> from pathlib import Path
>>> from qkv_site.project import load_project
>>> from qkv_site.site_nav import read_nav
>>> found = values(load_project("mkdocs.yml"), read_nav(Path("mkdocs.yml"), Path("docs"), "en"))
>>> found["tokens"], found["d_model"], [row["source"] for row in found["reading_path"]][:2]
('2', '4', ['motivation.md', 'intuition.md'])
"""

from __future__ import annotations

from typing import Any

from qkv.complexity import format_bytes
from qkv.examples import worked_example
from qkv_site.downloads import SITE_PATH, Download, made
from qkv_site.editors_notes import added_pages
from qkv_site.project import Project
from qkv_site.site_nav import SiteNav

TAKES_NAV = True  # values(project, nav): qkv_site.builder.page_values hands it the nav of the language being built
KEPT_BETWEEN_BUILDS = False  # the downloads' sizes and sha256 come from their own cache: computed at every build
HOME = "index.md"


def reading_path(nav: SiteNav) -> list[dict[str, Any]]:
    """Every page of the nav but the home page, in order: its file, its title and its section's title
    ({lang: None} for a page at the nav's top level), each as {lang: title} in the nav's language."""
    rows = [{"source": entry.source, "title": entry.titles, "section": entry.sections}
            for entry in nav.entries if entry.source != HOME]
    if not rows:
        raise ValueError(f"the {nav.lang} nav has no page but the home page; the reading path would be empty")
    return rows


def _listed(download: Download) -> dict[str, str]:
    """A download as the home page lists it: its name, its address from a language folder (the pages'
    links are checked by MkDocs, as from docs/<lang>/index.md), its size and its sha256."""
    return {"name": download.name, "link": f"../{SITE_PATH}/{download.name}", "size": format_bytes(download.size),
            "sha256": download.sha256}


def downloads(project: Project) -> dict[str, Any]:
    """The two files the site serves and what the instructions name: the archive's folder, the program
    they run, the notebooks inside it, the wheel's dependencies (and in reader words, each an exact version) and
    the oldest Python."""
    made_ = made(project)
    return {"wheel": _listed(made_.wheel), "programs": _listed(made_.programs), "folder": made_.folder,
            "example": made_.example, "notebooks": dict(made_.notebooks), "requires": list(made_.requires),
            "pins": list(made_.pins), "python": made_.python}


def values(project: Project, nav: SiteNav) -> dict[str, Any]:
    example = worked_example()
    tokens, d_model = example.x.shape  # (tokens, d_model)
    return {"tokens": str(tokens), "d_model": str(d_model), "reading_path": reading_path(nav),
            "additions": [{"source": entry.source, "title": entry.titles} for entry in added_pages(nav.entries)],
            "downloads": downloads(project)}
