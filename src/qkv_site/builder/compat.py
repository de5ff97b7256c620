"""Every reach of the build into another package's internals, in one place.

Each entry names the package, the pinned version it was written for (pyproject.toml pins them all)
and what it uses. Material's search worker, which the build corrects in the built site, has its own
check in `qkv_site.builder.material_search` (the code it changes must be there exactly once), run from here.
`check` runs when the plugin starts: after a dependency bump, the build stops at once with a message
naming the internal that moved, instead of failing deep inside a page.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from importlib.metadata import version
from typing import Any

from mkdocs.exceptions import PluginError


@dataclass(frozen=True)
class Internal:
    """One private attribute of another package that the build reads or replaces."""

    package: str  # the distribution, as pip names it
    written_for: str  # its version when the code that uses the internal was written
    module: str
    attribute: str
    why: str

    def resolve(self) -> Any:
        return getattr(import_module(self.module), self.attribute)


MARKDOWN_EXEC_RUN = Internal(
    "markdown-exec", "1.12.6", "markdown_exec._internal.formatters.python", "_run_python",
    "the function that runs a `python exec` block: wrapped to reuse outputs from the build cache",
)
MARKDOWN_EXEC_SESSIONS = Internal(
    "markdown-exec", "1.12.6", "markdown_exec._internal.formatters.python", "_sessions_globals",
    "the variables of every session: emptied for each page, so no page sees another page's",
)
NBCLIENT_COALESCE = Internal(
    "nbclient", "0.11.0", "nbclient", "NotebookClient",
    "its `coalesce_streams` trait default: one output stream per cell, so two builds write the same page",
)

NUMPY_CPU_FEATURES = Internal(
    "numpy", "2.4.6", "numpy._core._multiarray_umath", "__cpu_features__",
    "the SIMD extensions numpy dispatches to on this CPU (its exp, log and sums round by them): part of the caches' keys",
)
INTERNALS = (MARKDOWN_EXEC_RUN, MARKDOWN_EXEC_SESSIONS, NBCLIENT_COALESCE, NUMPY_CPU_FEATURES)

# qkv's own reach, into the OpenBLAS bundled with numpy (its thread count, by ctypes), is recorded in qkv itself,
# which imports nothing of the site: `qkv._threads.OPENBLAS_REACH` names the numpy it was written for, and
# tests/test_threads.py checks it. Listed here so that this file stays the one place to look for every reach.
QKV_REACHES = ("qkv._threads.OPENBLAS_REACH",)

# traitlets 5.16.1: each class keeps the initial values of its traits, copied when the class was made.
TRAITLETS_INITIAL_VALUES = "_static_immutable_initial_values"

# Private attributes of plugin instances, checked on the instance when the build starts.
# mkdocs-static-i18n 1.3.1: the documentation pages of each language it writes the sitemap from, and
# the home-page links overrides/partials/alternate.html uses for the 404 page.
I18N_FILES_PER_LANGUAGE = "i18n_files_per_language"
I18N_EXTRA_ALTERNATE = "extra_alternate"
JUPYTER_USED_CACHE_PATHS = "_used_cache_paths"  # mkdocs-jupyter 0.26.3: the cache entries a build used
JUPYTER_PUBLIC = ("should_include", "on_files")  # called directly, outside MkDocs' event order


def check(internals: tuple[Internal, ...] = INTERNALS) -> None:
    """Raise `PluginError` naming every internal that is gone from the installed packages."""
    missing = []
    for internal in internals:
        try:
            internal.resolve()
        except (ImportError, AttributeError):
            missing.append(
                f"{internal.module}.{internal.attribute} ({internal.why}), written for {internal.package} "
                f"{internal.written_for}, installed {version(internal.package)}"
            )
    client = import_module("nbclient").NotebookClient
    if not hasattr(client, "coalesce_streams"):
        missing.append(f"nbclient.NotebookClient.coalesce_streams, written for nbclient 0.11.0, installed {version('nbclient')}")
    if not isinstance(client.__dict__.get(TRAITLETS_INITIAL_VALUES), dict):
        missing.append(f"traitlets' {TRAITLETS_INITIAL_VALUES} on NotebookClient, written for traitlets 5.16.1, "
                       f"installed {version('traitlets')}")
    from qkv_site.builder import material_search

    try:
        material_search.check()
    except material_search.MaterialChanged as error:
        missing.append(str(error))
    if missing:
        raise PluginError("the site build relies on internals that changed:\n  " + "\n  ".join(missing)
                          + "\nupdate src/qkv_site/builder/compat.py and the code that uses them")


def check_i18n(plugin: object) -> None:
    """What the build and the theme overrides use of the mkdocs-static-i18n plugin instance."""
    absent = [name for name in (I18N_FILES_PER_LANGUAGE, I18N_EXTRA_ALTERNATE, "current_language") if not hasattr(plugin, name)]
    if absent:
        raise PluginError(f"mkdocs-static-i18n {version('mkdocs-static-i18n')} has no {absent} (written for 1.3.1): "
                          "update src/qkv_site/builder/compat.py, site_files.py and overrides/partials/alternate.html")


def check_jupyter(plugin: object) -> None:
    """The same check for what the build uses of the mkdocs-jupyter plugin instance (call it after
    mkdocs-jupyter's own ``on_pre_build``, which creates its record of used cache entries)."""
    absent = [name for name in (JUPYTER_USED_CACHE_PATHS, *JUPYTER_PUBLIC) if not hasattr(plugin, name)]
    if absent or "cache_dir" not in getattr(plugin, "config", {}):
        raise PluginError(f"mkdocs-jupyter {version('mkdocs-jupyter')} has no {absent or ['cache_dir option']} "
                          "(written for 0.26.3): update src/qkv_site/builder/compat.py and the code that uses them")
