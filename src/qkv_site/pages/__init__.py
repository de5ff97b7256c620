"""What the pages call: for each page that says ``values: <name>`` in its front matter, the module
`qkv_site.pages.<name>` computes, with `qkv`, the numbers its prose and tables show (`values(project)`;
every page's is given the `qkv_site.project.Project` of the build: its docs folder, its benchmark results).

The values are the same for both languages; each language's page supplies its own words around them
(see `qkv_site.builder.page_values`). The programs a page shows its reader are in ``docs_src/<page>/``.
"""
