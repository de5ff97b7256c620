"""Named values in a page's prose: a page says ``values: complexity`` in its front matter, and its
Markdown uses what `qkv_site.pages.complexity.values(project)` computed — ``{{ crossover }}`` in a sentence,
``{% for row in memory %}…{% endfor %}`` for the rows of a table whose header and words stay in the page.

The page is a Jinja template (Jinja2 comes with MkDocs), rendered before Markdown sees it, with
strict undefined values: a misspelt name, a missing value or a failing computation stops the build
naming the page. Only pages that ask for values are rendered, so TeX elsewhere is never read as Jinja.
Each language's page supplies its own words; the values are the same numbers for both. A page whose
values list other pages (the home page, the corrections page) says ``TAKES_NAV = True`` in its module: its
``values(project, nav)`` is handed the nav of the language being built (`qkv_site.site_nav.SiteNav`).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping
from importlib import import_module
from pathlib import Path
from typing import Any

import jinja2
from mkdocs.exceptions import PluginError

from qkv_site.builder.block_cache import process_digest
from qkv_site.cache_files import atomic_write, sweep
from qkv_site.project import Project
from qkv_site.site_nav import SiteNav

PAGES_PACKAGE = "qkv_site.pages"
FRONT_MATTER_KEY = "values"
# What every page may name from the build's configuration; None unless the deploy environment sets it.
SITE_NAMES: dict[str, Any] = {"repo_url": None, "repo_name": None}

_environment = jinja2.Environment(
    undefined=jinja2.StrictUndefined,
    autoescape=False,  # the output is Markdown, not HTML
    keep_trailing_newline=True,
    trim_blocks=True,  # a {% for %} or {% endfor %} line leaves no empty line in a table
    lstrip_blocks=True,
)


def kept_path(cache: Path, name: str, project: Project, nav: SiteNav | None = None) -> Path:
    """Where the values of page module ``name`` are kept in ``cache``: under the build's inputs digest
    (`qkv_site.builder.block_cache.process_digest`: all of qkv and qkv_site, the project's results) and, for
    a module that takes the nav, its language and its digest (its titles and its pages' texts)."""
    folder = cache / process_digest(project)[:16]
    return folder / (f"{name}.pickle" if nav is None else f"{name}.{nav.lang}.{nav.digest()[:16]}.pickle")


def page_values(name: str, project: Project, cache: Path | None = None, nav: SiteNav | None = None) -> Mapping[str, Any]:
    """What `qkv_site.pages.<name>.values(project)` computed, or ``values(project, nav)`` when the module says
    ``TAKES_NAV = True``. With ``cache`` (a folder), the values are kept there (`kept_path`), so a rebuild
    with the same inputs reads them instead of computing them again, unless the module says
    ``KEPT_BETWEEN_BUILDS = False``; a nav's older values are deleted when its new ones are kept."""
    module = import_module(f"{PAGES_PACKAGE}.{name}")
    takes_nav = getattr(module, "TAKES_NAV", False)
    if takes_nav and nav is None:
        raise ValueError("its values are computed from the nav of the language being built, and none was given")
    if not getattr(module, "KEPT_BETWEEN_BUILDS", True):
        cache = None
    if cache is not None:
        kept = kept_path(cache, name, project, nav if takes_nav else None)
        if kept.is_file():
            stored: Mapping[str, Any] = pickle.loads(kept.read_bytes())
            return stored
    computed: Mapping[str, Any] = module.values(project, nav) if takes_nav else module.values(project)
    if cache is not None:
        sweep(cache, keep=kept.parent)
        if takes_nav and nav is not None:  # the values of this language's nav before a page changed
            for older in kept.parent.glob(f"{name}.{nav.lang}.*.pickle"):
                older.unlink(missing_ok=True)
        atomic_write(kept, pickle.dumps(computed))
    return computed


def _template(markdown: str, src_uri: str, templates: Path | None) -> jinja2.Template:
    """The page as a Jinja template. With ``templates``, its compiled code is kept there by Jinja's own
    bytecode cache (one file per page, replaced when the page's text changes): a rebuild does not compile
    an unchanged page again."""
    if templates is None:
        return _environment.from_string(markdown)
    templates.mkdir(parents=True, exist_ok=True)
    bytecode = jinja2.FileSystemBytecodeCache(str(templates))
    bucket = bytecode.get_bucket(_environment, src_uri, None, markdown)
    if bucket.code is None:
        bucket.code = _environment.compile(markdown, src_uri)
        bytecode.set_bucket(bucket)
    return _environment.template_class.from_code(_environment, bucket.code, _environment.make_globals(None))


def render(markdown: str, meta: Mapping[str, Any], src_uri: str, project: Project, cache: Path | None = None,
           site: Mapping[str, Any] | None = None, functions: Mapping[str, Callable[..., str]] | None = None,
           nav: SiteNav | None = None, templates: Path | None = None) -> str:
    """``markdown`` with its named values filled in, or unchanged when its front matter asks for none.
    Every page's values are computed from ``project`` (`qkv_site.project`): its results, its docs.
    With ``templates`` (a folder), the page compiled as a template is kept there (`_template`).

    ``site`` holds what every page may name from the build's configuration (``repo_url``, ``repo_name``:
    set only when the deploy environment gives them, so a page chooses its words with ``{% if repo_url %}``);
    ``functions`` what writes markup for the page (``figure``, `qkv_site.builder.figures.figure_macro`);
    ``nav`` the nav of the page's language, for the pages whose values list other pages.
    """
    name = meta.get(FRONT_MATTER_KEY)
    if name is None:
        return markdown
    site = {**SITE_NAMES, **(site or {}), **(functions or {})}
    try:
        values = page_values(str(name), project, cache, nav)
        clash = sorted(set(values) & set(site))
        if clash:
            raise ValueError(f"its values shadow the site's own names {clash}")
        return _template(markdown, src_uri, templates).render({**site, **values})
    except jinja2.TemplateSyntaxError as error:
        raise PluginError(f"{src_uri}, line {error.lineno}: {error.message}") from error
    except Exception as error:
        raise PluginError(f"{src_uri}: its values ({PAGES_PACKAGE}.{name}) failed: {type(error).__name__}: {error}") from error
