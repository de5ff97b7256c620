"""Drawing a social card: a page's title and the site's name on a 1200×630 PNG, in the figure font.

`qkv_site.builder.social_card_images` names the cards and keeps them; this module is imported only when a card
is not in its cache yet.
"""

from __future__ import annotations

import io
import re
import warnings

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Rectangle
from PIL import Image

from qkv_site.builder.social_card_images import HEIGHT, WIDTH
from qkv_site.figures import fonts
from qkv_site.figures.style import COLORS, LIGHT

DPI = 100
MARGIN = 80  # px on every side of the text
TITLE_SIZES = (60, 52, 44, 38)  # pt, largest first: the largest that fits in MAX_LINES lines
MAX_LINES = 3
SITE_SIZE = 30
INK, MUTED, PAPER = LIGHT.text, "#5c5c66", "#fbfaff"


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
    with matplotlib.rc_context({"font.family": [fonts.register()], "text.color": INK, "mathtext.fontset": "dejavusans"}), \
            warnings.catch_warnings():
        warnings.filterwarnings("error", message=r".*Glyph.*missing")
        try:
            return _draw(title, site_name)
        except UserWarning as warning:  # only the glyph warning is turned into an error above
            raise ValueError(f"social card for {title!r}: {warning}") from warning


def _draw(title: str, site_name: str) -> bytes:
    size, lines = _layout(as_mathtext(title))
    fig = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI, facecolor=PAPER)
    canvas = FigureCanvasAgg(fig)

    def px(x: float, y: float) -> tuple[float, float]:  # pixels from the top left → figure fraction
        return x / WIDTH, 1 - y / HEIGHT

    # Q, K, V: three bands across the top, the colours every figure uses for them.
    for i, role in enumerate(("q", "k", "v")):
        fig.patches.append(Rectangle((i / 3, 1 - 18 / HEIGHT), 1 / 3, 18 / HEIGHT, transform=fig.transFigure,
                                     facecolor=COLORS[role], edgecolor="none"))
    fig.text(*px(MARGIN, 250), "\n".join(lines), fontsize=size, ha="left", va="center", linespacing=1.25, color=INK)
    fig.text(*px(MARGIN, HEIGHT - MARGIN), site_name, fontsize=SITE_SIZE, ha="left", va="baseline", color=MUTED)
    canvas.draw()  # type: ignore[no-untyped-call]
    # RGB (the card is opaque) with light compression: encoding is most of the drawing time.
    image = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba()).convert("RGB")  # type: ignore[no-untyped-call]
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)  # PIL writes no date or software name
    return buffer.getvalue()
