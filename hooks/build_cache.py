"""Reuse what the last build computed when nothing it depends on changed.

- `python exec="on"` blocks (markdown-exec): the printed output, keyed by `qkv_site.build_cache`
  (the `qkv`/`qkv_site` sources, the benchmark results, the block's code and the code before it in
  its session on its page). Each page starts its sessions empty, so a page computes the same thing
  whether its blocks ran or came from the cache. A block that reads the pages themselves (the
  corrections page lists every page's editor's notes) is also keyed by the text of every page.
- notebooks (mkdocs-jupyter): its own cache is keyed by the notebook file only, so it lives in a
  folder named after the same inputs digest, which is emptied when the inputs change.
- Jinja templates: compiled once, kept as bytecode (Jinja checks the template source).
"""

from __future__ import annotations

import hashlib
import logging
import shutil
from pathlib import Path

import jinja2
from markdown_exec._internal.formatters import python as markdown_exec_python  # pinned: markdown-exec 1.12.6
from mkdocs.plugins import event_priority

from qkv_site.build_cache import block_cache, process_digest

log = logging.getLogger("mkdocs.hooks.build_cache")

CACHE = ".cache"
# The function markdown-exec runs a block with (`mkdocs serve` loads this hook again for every
# rebuild: unwrap the previous load's `_cached_run`).
_run_python = getattr(markdown_exec_python._run_python, "__wrapped__", markdown_exec_python._run_python)
_page: dict = {"uri": None, "earlier": {}, "ran": {}}  # the page being rendered and its sessions so far
_notebooks_used: set = set()  # mkdocs-jupyter's record of used entries, shared by both language passes
# Modules whose output depends on the pages' own text, not only on the code that calls them.
READS_PAGES = ("qkv_site.corrections",)


def _cache_root(config) -> Path:
    return Path(config.config_file_path).resolve().parent / CACHE


def _pages_digest() -> str:
    """sha256 of every page's source and of the configuration (its nav orders the pages)."""
    digest = hashlib.sha256(_page["config_file"].read_bytes())
    for path in sorted(_page["docs"].rglob("*.md")):
        digest.update(str(path.relative_to(_page["docs"])).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _cached_run(code: str, returncode: int | None = None, session: str | None = None, id: str | None = None,
                **extra: str) -> str:
    cache = block_cache(_page["folder"])
    earlier: list[str] = _page["earlier"].setdefault(session, []) if session else []
    options = {"returncode": returncode, "id": id, **extra}
    if any(module in code for module in READS_PAGES):
        options["pages"] = _pages_digest()
    key = cache.key(page=_page["uri"], session=session, earlier=earlier, code=code, options=options)
    output = cache.load(key)
    if output is None:
        if session:  # bring the session up to this block: run the earlier blocks that came from the cache
            for previous in earlier[_page["ran"].get(session, 0):]:
                _run_python(previous, session=session, id=id, **extra)
        output = _run_python(code, returncode=returncode, session=session, id=id, **extra)
        cache.store(key, output)
        _page["ran"][session] = len(earlier) + 1
    if session:
        earlier.append(code)
    return output


_cached_run.__wrapped__ = _run_python


def on_config(config, **kwargs):
    if not hasattr(markdown_exec_python, "_sessions_globals"):
        raise RuntimeError("markdown-exec changed its internals: update hooks/build_cache.py")
    markdown_exec_python._run_python = _cached_run
    _page["folder"] = _cache_root(config) / "markdown-exec"
    _page["docs"] = Path(config["docs_dir"]).resolve()
    _page["config_file"] = Path(config.config_file_path).resolve()
    jupyter = config.plugins["mkdocs-jupyter"]
    notebooks = _cache_root(config) / "mkdocs-jupyter"
    current = notebooks / process_digest()[:16]
    if notebooks.is_dir():  # entries of other inputs can never be used again
        for stale in notebooks.iterdir():
            if stale != current:
                shutil.rmtree(stale) if stale.is_dir() else stale.unlink(missing_ok=True)
    jupyter.config["cache_dir"] = str(current)
    return config


@event_priority(-50)  # after mkdocs-jupyter's on_pre_build, which starts a new record of used entries
def on_pre_build(config, **kwargs) -> None:
    # mkdocs-jupyter deletes the entries a build did not use when the build ends, and the first
    # language pass ends before the second one starts: it would delete the other language's
    # notebook every time. The folder holds only entries of the current inputs: keep them all.
    jupyter = config.plugins["mkdocs-jupyter"]
    _notebooks_used.update(Path(jupyter.config["cache_dir"]).glob("*.json"))
    jupyter._used_cache_paths = _notebooks_used


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    _page.update(uri=page.file.src_uri, earlier={}, ran={})
    markdown_exec_python._sessions_globals.clear()  # no page sees another page's variables
    return markdown


def on_env(env: jinja2.Environment, config, **kwargs) -> jinja2.Environment:
    folder = _cache_root(config) / "jinja"
    folder.mkdir(parents=True, exist_ok=True)
    env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))
    return env


def on_post_build(config, **kwargs) -> None:
    _page["built"] = True  # every page of this pass was rendered


def on_shutdown(**kwargs) -> None:
    # Only after a finished build: a build that failed early asked for few outputs, not none needed.
    if _page.get("built"):
        removed = block_cache(_page["folder"]).evict_unused()
        if removed:
            log.info(f"build cache: removed {removed} outputs of code blocks no page has any more")
