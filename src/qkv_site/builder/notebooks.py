"""Notebooks in both languages: rendered as pages, executed once per set of inputs.

- mkdocs-static-i18n rebuilds the list of files after the other plugins (priority -100), which drops
  the wrappers mkdocs-jupyter put on ``.ipynb`` files, so the notebooks would be published as raw JSON
  (mkdocs-static-i18n #198). `render_notebooks` hands the rebuilt list back to mkdocs-jupyter.
- mkdocs-jupyter's own cache is keyed by the notebook file only, so it lives in a folder named after
  the build's inputs digest (qkv_site.builder.block_cache), emptied when the inputs change (`cache_folder`).
- A cell that prints twice came out as one stream or as two, depending on when the kernel flushed
  stdout. nbclient can merge them after each cell; mkdocs-jupyter does not expose the option, so its
  default is changed (`merge_printed_output`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files

from qkv_site.builder import compat
from qkv_site.builder.block_cache import process_digest
from qkv_site.cache_files import sweep
from qkv_site.project import Project


def merge_printed_output() -> None:
    """Every notebook client made from now on merges a cell's printed output into one stream."""
    from nbclient import NotebookClient

    NotebookClient.coalesce_streams.default_value = True
    # A subclass made before this (nbconvert's ExecutePreprocessor, imported with mkdocs-jupyter) keeps
    # the default it copied when it was made, in traitlets' table of initial values: change it there.
    classes = [NotebookClient]
    while classes:
        cls = classes.pop()
        initial = cls.__dict__.get(compat.TRAITLETS_INITIAL_VALUES, {})
        if "coalesce_streams" in initial:
            initial["coalesce_streams"] = True
        classes.extend(cls.__subclasses__())


def cache_folder(cache: Path, project: Project) -> Path:
    """The folder of mkdocs-jupyter's cache for today's inputs of ``project``; folders of other inputs are deleted."""
    current = cache / process_digest(project)[:16]
    sweep(cache, keep=current)
    return current


class NotebookPages:
    """What the two language passes share about the notebooks."""

    def __init__(self) -> None:
        # A notebook's path inside its language folder → {language: the i18n file of that language}.
        self.alternates: dict[str, dict[str, Any]] = {}
        # mkdocs-jupyter's record of used cache entries, shared by both language passes.
        self.used_cache_entries: set[Path] = set()

    def keep_both_languages(self, jupyter: Any) -> None:
        """mkdocs-jupyter deletes the cache entries a build did not use when the build ends, and the first
        language pass ends before the second starts: it would delete the other language's notebook every
        time. The folder holds only entries of the current inputs: keep them all."""
        self.used_cache_entries.update(Path(jupyter.config["cache_dir"]).glob("*.json"))
        jupyter._used_cache_paths = self.used_cache_entries

    def render(self, files: Files, config: MkDocsConfig, jupyter: Any) -> Files:
        notebooks = [file for file in files if jupyter.should_include(file)]
        rendered = jupyter.on_files(Files(notebooks), config=config)
        notebook: Any  # an i18n file: it carries `alternates`
        for notebook, page in zip(notebooks, rendered, strict=True):
            # mkdocs-jupyter recomputes the destination from the source path (zh/notebook.ipynb →
            # zh/notebook/), undoing the i18n move of the default language to the site root: keep i18n's.
            page.dest_uri, page.url, page.abs_dest_path = notebook.dest_uri, notebook.url, notebook.abs_dest_path
            # In the later languages' passes mkdocs-static-i18n finds no alternates for a notebook, so the
            # language selector of /en/notebook/ would point to "/": reuse those of the first pass.
            known = self.alternates.setdefault(notebook.src_uri.split("/", 1)[-1], {})
            known.update(notebook.alternates)
            notebook.alternates.update(known)
            files.remove(notebook)
            files.append(page)
        return files  # the same (i18n-aware) collection, with the notebooks now pages
