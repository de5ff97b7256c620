"""Let mkdocs-jupyter render the notebooks of every language.

mkdocs-static-i18n rebuilds the list of files after the other plugins (priority -100), which drops
the notebook wrappers mkdocs-jupyter put on ``.ipynb`` files, so the notebooks would be published
as raw JSON (mkdocs-static-i18n #198). Handing the rebuilt list back to mkdocs-jupyter fixes it.
"""

from __future__ import annotations

from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files
from nbclient import NotebookClient

# A cell that prints twice came out as one stream or as two, depending on when the kernel flushed
# stdout, so two builds could write different pages. nbconvert merges streams only before it executes
# a notebook; nbclient can merge them after each cell, but mkdocs-jupyter does not expose the option.
NotebookClient.coalesce_streams.default_value = True

# A notebook's path inside its language folder → {language: the i18n file of that language}.
_ALTERNATES: dict[str, dict] = {}


@event_priority(-110)  # after mkdocs-static-i18n's on_files
def on_files(files: Files, config, **kwargs) -> Files:
    jupyter = config.plugins["mkdocs-jupyter"]
    notebooks = [file for file in files if jupyter.should_include(file)]
    rendered = jupyter.on_files(Files(notebooks), config=config)
    for notebook, page in zip(notebooks, rendered):
        # mkdocs-jupyter recomputes the destination from the source path (zh/notebook.ipynb →
        # zh/notebook/), undoing the i18n move of the default language to the site root: keep i18n's.
        page.dest_uri, page.url, page.abs_dest_path = notebook.dest_uri, notebook.url, notebook.abs_dest_path
        # In the later languages' passes mkdocs-static-i18n finds no alternates for a notebook, so
        # the language selector of /en/notebook/ would point to "/": reuse those of the first pass.
        known = _ALTERNATES.setdefault(notebook.src_uri.split("/", 1)[-1], {})
        known.update(notebook.alternates)
        notebook.alternates.update(known)
        files.remove(notebook)
        files.append(page)
    return files  # the same (i18n-aware) collection, with the notebooks now pages
