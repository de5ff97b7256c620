"""Build-time helpers that turn `qkv` output into the site's matrices, tables and figures."""
