"""Put the notebook pages into sitemap.xml.

mkdocs-static-i18n (1.3.1) writes the sitemap from the documentation pages of each language it
keeps in ``i18n_files_per_language`` (its ``on_files``, priority -100). It makes its own ``File``
objects, and for a notebook that is a plain ``File`` whose ``is_documentation_page()`` is false
(mkdocs-jupyter's ``NotebookFile`` says true), so docs/<lang>/notebook.ipynb was missing. Right after
it, the list is made again with the notebooks in it, in the same order. overrides/sitemap.xml is the
plugin's template, left empty when there is no site_url.
"""

from __future__ import annotations

from mkdocs.plugins import event_priority


@event_priority(-110)  # after mkdocs-static-i18n's on_files (-100)
def on_files(files, config, **kwargs):
    i18n = config.plugins.get("i18n")
    if i18n is None or not hasattr(i18n, "i18n_files_per_language"):
        raise RuntimeError("hooks/sitemap.py expects mkdocs-static-i18n 1.3.1's i18n_files_per_language")
    i18n.i18n_files_per_language[i18n.current_language] = [
        file for file in files if file.is_documentation_page() or file.src_uri.endswith(".ipynb")
    ]
    return files
