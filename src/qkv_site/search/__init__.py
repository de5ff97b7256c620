"""The site's search, one index per language: what a page's entries say (text.py), the other names an entry is
found by (names.py), the Chinese words jieba keeps whole (words.py), the index written and split per language
(index.py), and the corrections to Material's search worker (material_worker.py; what they rely on of Material
is listed in qkv_site.builder.compat). The browser side is docs/assets/javascripts/search-on-demand.js."""
