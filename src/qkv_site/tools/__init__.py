"""The command-line tools: the PDF edition (``python -m qkv_site.tools.pdf``), what each page costs a reader
(page_weight.py), and the local server and browser the PDF edition and the browser tests share."""
