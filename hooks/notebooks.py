"""Let mkdocs-jupyter render the notebooks of every language.

mkdocs-static-i18n rebuilds the list of files after the other plugins (priority -100), which drops
the notebook wrappers mkdocs-jupyter put on ``.ipynb`` files, so the notebooks would be published
as raw JSON (mkdocs-static-i18n #198). Handing the rebuilt list back to mkdocs-jupyter fixes it.
"""

from __future__ import annotations

from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files


@event_priority(-110)  # after mkdocs-static-i18n's on_files
def on_files(files: Files, config, **kwargs) -> Files:
    jupyter = config.plugins["mkdocs-jupyter"]
    notebooks = [file for file in files if jupyter.should_include(file)]
    rendered = jupyter.on_files(Files(notebooks), config=config)
    for notebook, page in zip(notebooks, rendered):
        files.remove(notebook)
        files.append(page)
    return files  # the same (i18n-aware) collection, with the notebooks now pages
