"""What the site build runs: the MkDocs plugin (`plugin.SitePlugin`) and the pieces it calls."""
