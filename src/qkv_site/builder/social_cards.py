"""Every page's social card: og:/twitter: meta tags and a 1200×630 PNG drawn by qkv_site.builder.social_card_images.

og:url and og:image must be absolute addresses, so they come only from the published ``site_url``: a
build without one (no SITE_URL) leaves them out, and the title and description stay.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig

from qkv_site.builder.social_card_images import HEIGHT, WIDTH, card
from qkv_site.cache_files import atomic_write

FOLDER = "assets/social"  # inside the built site


def _card_title(page: Any, config: MkDocsConfig) -> str:
    # A language's home page (zh/index.md, en/index.md) is titled "首页 / Home" in the navigation:
    # its card carries the article's full title, the language's site_description, instead.
    home = page.file.src_uri.split("/", 1)[-1] == "index.md"
    return str(config.site_description if home else page.title)


def with_card(output: str, page: Any, config: MkDocsConfig, cache: Path) -> str:
    """The page's HTML with its og:/twitter: tags (and its card written, when it can be named)."""
    title = _card_title(page, config)
    image = None
    if config.site_url:  # a card no tag can name is not drawn
        name, png = card(title, config.site_name, cache / "social-cards")
        target = Path(config.site_dir) / FOLDER / name
        if not target.exists():
            atomic_write(target, png)
        image = f"{config.site_url.rstrip('/')}/{FOLDER}/{name}"
    description = page.meta.get("description") or config.site_description
    tags = {
        "og:type": "website",
        "og:site_name": config.site_name,
        "og:title": title,
        "og:description": description,
        "og:url": page.canonical_url,
        "og:image": image,
        "og:image:type": image and "image/png",
        "og:image:width": image and str(WIDTH),
        "og:image:height": image and str(HEIGHT),
        "og:image:alt": image and f"{title} · {config.site_name}",
        "twitter:card": "summary_large_image" if image else "summary",
        "twitter:title": title,
        "twitter:description": description,
        "twitter:image": image,
    }
    meta = "".join(
        f'<meta {"name" if key.startswith("twitter:") else "property"}="{key}" content="{html.escape(value, quote=True)}">'
        for key, value in tags.items()
        if value
    )
    head_end = output.index("</head>")
    return output[:head_end] + meta + output[head_end:]
