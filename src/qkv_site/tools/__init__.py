"""The command-line tools: the PDF edition (``python -m qkv_site.tools.pdf``) and the translation
records (``python -m qkv_site.tools.translations``), and the local server and browser the PDF edition
and the browser tests share."""
