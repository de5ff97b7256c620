"""Every page's social card: its og:/twitter: meta tags and a 1200×630 PNG of its title, drawn at build time.

og:url and og:image must be absolute addresses, so they come only from the published ``site_url``: a
build without one (no SITE_URL) leaves them out, and the title and description stay.

A card's file name is the hash of everything it shows and of the code and font that draw it, so an
unchanged page costs a hash on the next build; only a card that is not kept yet is drawn, and
matplotlib is imported only then (a build whose cards are all kept does not load it).
"""

from __future__ import annotations

import functools
import hashlib
import html
import io
import re
import warnings
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig

from qkv_site.cache_files import atomic_write, files_digest
from qkv_site.figures import fonts

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


# Naming and keeping cards

WIDTH, HEIGHT = 1200, 630  # pixels: the size Facebook, LinkedIn and X ask for
CODE = Path(__file__)  # this module: the cards are drawn by it


@functools.cache  # one per process: every card of a build is drawn by the same code and font
def _code_digest() -> str:
    return files_digest([(CODE.name, CODE)], ["matplotlib"], [fonts.static_font_name()])


def card_name(title: str, site_name: str) -> str:
    """The card's file name: a hash of its text and of the code and font that draw it."""
    h = hashlib.sha256(f"{title}\0{site_name}\0{_code_digest()}".encode())
    return f"{h.hexdigest()[:20]}.png"


def card(title: str, site_name: str, folder: Path) -> tuple[str, bytes]:
    """(file name, PNG) of the card for `title`, drawn only when ``folder`` does not hold it yet."""
    name = card_name(title, site_name)
    kept = folder / name
    if kept.exists():
        return name, kept.read_bytes()
    content = draw_card(title, site_name)
    atomic_write(kept, content)  # two builds at once: both write the same bytes, the last rename wins
    return name, content


# Drawing a card (matplotlib is imported here, only when a card is not kept yet)

DPI = 100
MARGIN = 80  # px on every side of the text
TITLE_SIZES = (60, 52, 44, 38)  # pt, largest first: the largest that fits in MAX_LINES lines
MAX_LINES = 3
SITE_SIZE = 30
MUTED, PAPER = "#5c5c66", "#fbfaff"  # the title is in the light scheme's text colour


# Unicode subscripts in titles ("√dₖ") become mathtext: the figure font has no glyphs for them.
SUBSCRIPTS = str.maketrans("ₐₑₒₓₔₕₖₗₘₙₚₛₜ", "aeoxəhklmnpst")
MATH = re.compile(r"√?\w[ₐₑₒₓₔₕₖₗₘₙₚₛₜ]+")
# What a line may not break inside: mathtext, a Latin word, or one CJK character, each with the
# closing punctuation after it ("：", "——") and the opening one before it ("（"), as Chinese typesetting wants.
CLOSING, OPENING = "，。：；！？）」》、—…", "（「《"
TOKEN = re.compile(rf"(?:\$[^$]*\$|[\x21-\x7e]+|[{OPENING}]*\S)[{CLOSING}]*\s*")


def as_mathtext(title: str) -> str:
    r"""Title text with subscripts as mathtext, which matplotlib draws with its own math font.

    >>> print(as_mathtext("Why scale by √dₖ?"))
    Why scale by $\sqrt{d_{k}}$?
    """

    def convert(match: re.Match[str]) -> str:
        text = match.group()
        root = text.startswith("√")
        base, sub = text[root], text[1 + root:].translate(SUBSCRIPTS)
        symbol = f"{base}_{{{sub}}}"
        return f"$\\sqrt{{{symbol}}}$" if root else f"${symbol}$"

    return MATH.sub(convert, title)


def wrap(text: str, size: float, max_width: float) -> list[str]:
    """Break `text` into lines no wider than `max_width` px at `size` pt in the figure font.

    Latin words and mathtext stay whole; CJK text may break between any two characters.

    >>> wrap("Q, K and V: the intuition", 60, 2000)
    ['Q, K and V: the intuition']
    """
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties

    renderer = RendererAgg(WIDTH, HEIGHT, DPI)  # type: ignore[no-untyped-call]  # matplotlib's Agg renderer has no types
    prop = FontProperties(family=fonts.register(), size=size)

    def width(line: str) -> float:
        line = line.rstrip()
        return float(renderer.get_text_width_height_descent(line, prop, ismath="$" in line)[0])  # type: ignore[no-untyped-call]

    lines = [""]
    for token in TOKEN.findall(text.strip()):
        if lines[-1] and width(lines[-1] + token) > max_width:
            lines.append("")
        lines[-1] += token
    return [line.rstrip() for line in lines]


def _layout(title: str) -> tuple[float, list[str]]:
    for size in TITLE_SIZES:
        lines = wrap(title, size, WIDTH - 2 * MARGIN)
        if len(lines) <= MAX_LINES:
            return size, lines
    raise ValueError(f"title {title!r} does not fit a social card in {MAX_LINES} lines at {TITLE_SIZES[-1]} pt")


def draw_card(title: str, site_name: str) -> bytes:
    """The PNG of one card: a Q/K/V colour bar on top, the title large, the site name below it.

    A character the font cannot draw fails here (matplotlib would only warn and draw a box).
    """
    import matplotlib

    from qkv_site.figures.style import LIGHT

    with matplotlib.rc_context({"font.family": [fonts.register()], "text.color": LIGHT.text, "mathtext.fontset": "dejavusans"}), \
            warnings.catch_warnings():
        warnings.filterwarnings("error", message=r".*Glyph.*missing")
        try:
            return _draw(title, site_name)
        except UserWarning as warning:  # only the glyph warning is turned into an error above
            raise ValueError(f"social card for {title!r}: {warning}") from warning


def _draw(title: str, site_name: str) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle
    from PIL import Image

    from qkv_site.figures.style import COLORS, LIGHT

    size, lines = _layout(as_mathtext(title))
    fig = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI, facecolor=PAPER)
    canvas = FigureCanvasAgg(fig)

    def px(x: float, y: float) -> tuple[float, float]:  # pixels from the top left → figure fraction
        return x / WIDTH, 1 - y / HEIGHT

    # Q, K, V: three bands across the top, the colours every figure uses for them.
    for i, role in enumerate(("q", "k", "v")):
        fig.patches.append(Rectangle((i / 3, 1 - 18 / HEIGHT), 1 / 3, 18 / HEIGHT, transform=fig.transFigure,
                                     facecolor=COLORS[role], edgecolor="none"))
    fig.text(*px(MARGIN, 250), "\n".join(lines), fontsize=size, ha="left", va="center", linespacing=1.25, color=LIGHT.text)
    fig.text(*px(MARGIN, HEIGHT - MARGIN), site_name, fontsize=SITE_SIZE, ha="left", va="baseline", color=MUTED)
    canvas.draw()  # type: ignore[no-untyped-call]
    # RGB (the card is opaque) with light compression: encoding is most of the drawing time.
    image = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba()).convert("RGB")  # type: ignore[no-untyped-call]
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)  # PIL writes no date or software name
    return buffer.getvalue()
