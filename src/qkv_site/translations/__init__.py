"""Translations: the Chinese pages are the source; each English page records which version of each Chinese
section it translates (records.py), the build puts a notice on an English page that is behind (notice.py), and
``python -m qkv_site.translations`` checks or records them (__main__.py)."""
