"""The site's figures, drawn from `qkv` at build time: one module per figure, rendered by `registry.render_all`."""
