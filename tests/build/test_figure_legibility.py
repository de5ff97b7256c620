"""Figure text is legible in both schemes: 4.5:1 on what lies behind it, at least 11 px on a phone,
no label or legend on a plotted line, and a heatmap whose colour grows stronger with the weight, as
the captions say."""

from __future__ import annotations

import pathlib
import re
import xml.etree.ElementTree as ET
from functools import cache
from unittest import mock

import matplotlib
import matplotlib.figure
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import rgb_to_hsv, to_hex, to_rgb
from matplotlib.path import Path
from matplotlib.text import Text
from repository import LANGUAGES, the_project
from site_pages import built_path

from qkv_site.figures.registry import FIGURES, SCHEMES
from qkv_site.figures.style import LIGHT, MIN_PHONE_TEXT, PHONE_WIDTH, TEXT_CONTRAST, THEMES, contrast, rc

CASES = [(name, lang, scheme) for name in FIGURES for lang in LANGUAGES for scheme in SCHEMES]
DPI = 150
draw_text = Text.draw
COVER = 0.15  # a colour filling this share of a text's box or more counts as its background


Backdrop = list[tuple[str, str, float, list[tuple[str, float]]]]


def texts_on_backdrop(name: str, lang: str, scheme: str) -> Backdrop:
    """Every visible text of a figure: (text, colour, size in pt, [(background colour, share of its box)])."""
    return looked_at(name, lang, scheme)[0]


@cache  # the contrast, phone and line tests read the same drawing of a figure
def looked_at(name: str, lang: str, scheme: str) -> tuple[Backdrop, list[str]]:
    """What the tests read from one drawing of a figure: its texts on their backdrop, and the labels
    that lie on a line (`labels_on_lines`).

    The figure is laid out once without its pixels (which texts it draws, and where), then drawn with
    every text hidden; the pixels under each text's box, flattened onto the page colour, are what that
    text is read against.
    """
    theme = THEMES[scheme]
    with matplotlib.rc_context(rc(theme)):
        fig = FIGURES[name](theme, lang, the_project())
        fig.set_dpi(DPI)
        canvas = FigureCanvasAgg(fig)
        drawn: list[Text] = []  # only what is drawn: an axis also holds tick labels outside its limits

        def record(text: Text, renderer) -> None:
            if text.get_visible() and text.get_text().strip():
                drawn.append(text)
            draw_text(text, renderer)

        with mock.patch.object(Text, "draw", record):
            fig.draw_without_rendering()  # every artist drawn to a renderer that paints nothing
        renderer = canvas.get_renderer()
        on_lines = labels_on_lines(fig, renderer)
        texts = list(dict.fromkeys(drawn))
        boxes = [t.get_window_extent(renderer) for t in texts]
        fig.set_layout_engine("none")  # keep every artist where it is while the texts are hidden
        for t in texts:
            t.set_visible(False)
        canvas.draw()
        rgba = np.asarray(canvas.buffer_rgba(), dtype=float) / 255  # (height, width, 4), straight alpha
    page = np.array(to_rgb(theme.background))
    flat = np.round((rgba[..., :3] * rgba[..., 3:] + page * (1 - rgba[..., 3:])) * 255).astype(np.uint8)
    height, width = flat.shape[:2]
    found = []
    for t, box in zip(texts, boxes):
        x0, x1 = max(int(box.x0), 0), min(int(np.ceil(box.x1)), width)
        y0, y1 = max(height - int(np.ceil(box.y1)), 0), min(height - int(box.y0), height)
        assert x1 > x0 and y1 > y0, f"{name} ({lang}, {scheme}): {t.get_text()!r} lies outside the figure"
        pixels = flat[y0:y1, x0:x1].reshape(-1, 3).astype(np.uint32)
        colours = pixels[:, 0] << 16 | pixels[:, 1] << 8 | pixels[:, 2]  # one integer per colour: 0xrrggbb
        packed, counts = np.unique(colours, return_counts=True)
        shares = counts / counts.sum()
        behind = [(f"#{int(c):06x}", float(s)) for c, s in zip(packed, shares) if s >= COVER]
        found.append((t.get_text(), to_hex(t.get_color()), float(t.get_fontsize()), behind))
    return found, on_lines


@cache
def svg_width_pt(site: pathlib.Path, name: str, lang: str, scheme: str) -> float:
    """The width of the figure's SVG as the built site serves it (figures/ beside the language's home page)."""
    svg = built_path(site, "index.md", lang).parent / "figures" / f"{name}.{scheme}.svg"
    root = ET.fromstring(svg.read_bytes())
    width = re.fullmatch(r"([\d.]+)pt", root.get("width"))
    assert width, root.get("width")
    return float(width.group(1))


def test_the_backdrop_check_sees_a_failing_colour() -> None:
    # The check itself: the old orange "Key" on white was 3.6:1, and ink() fixes it.
    assert contrast("#d9650f", "#ffffff") < TEXT_CONTRAST <= contrast(LIGHT.ink("#d9650f"), "#ffffff")


@pytest.mark.parametrize(("name", "lang", "scheme"), CASES)
def test_every_text_reaches_4_5_to_1_on_its_background(name: str, lang: str, scheme: str) -> None:
    found = texts_on_backdrop(name, lang, scheme)
    assert found, f"{name}: no text found"
    poor = [
        f"{text!r} {colour} on {background} ({share:.0%} of its box): {contrast(colour, background):.2f}:1"
        for text, colour, _, behind in found
        for background, share in behind
        if contrast(colour, background) < TEXT_CONTRAST
    ]
    assert not poor, f"{name} ({lang}, {scheme}):\n" + "\n".join(poor)


@pytest.mark.parametrize(("name", "lang", "scheme"), [case for case in CASES if case[2] == "light"])
def test_every_text_is_at_least_11_px_on_a_phone(site: pathlib.Path, name: str, lang: str, scheme: str) -> None:
    # The page shows the SVG at its own width (pt · 4/3 px) or narrower: on a phone, PHONE_WIDTH.
    natural = svg_width_pt(site, name, lang, scheme) * 4 / 3
    shrink = min(1.0, PHONE_WIDTH / natural)
    small = [
        f"{text!r}: {size:g} pt → {size * 4 / 3 * shrink:.1f} px"
        for text, _, size, _ in texts_on_backdrop(name, lang, scheme)
        if size * 4 / 3 * shrink < MIN_PHONE_TEXT
    ]
    assert not small, f"{name} ({lang}) is {natural:.0f} px wide, shown at {min(natural, PHONE_WIDTH):.0f} px:\n" + "\n".join(small)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_more_attention_is_always_a_stronger_colour(scheme: str) -> None:
    # The captions say "the stronger the colour, the more attention": in both schemes, the fill moves
    # away from the page (contrast) and gains saturation at every step from 0 to 1.
    theme = THEMES[scheme]
    steps = [theme.heatmap(w) for w in np.linspace(0, 1, 21)]
    against_page = [contrast(c, theme.background) for c in steps]
    saturation = [rgb_to_hsv(to_rgb(c))[1] for c in steps]
    assert all(b > a for a, b in zip(against_page, against_page[1:])), against_page
    assert all(b > a for a, b in zip(saturation, saturation[1:])), saturation


def labels_on_lines(fig: matplotlib.figure.Figure, renderer) -> list[str]:
    """Every text and legend of a figure's axes that a plotted line (or one of its markers) runs into.

    The boxes are matplotlib's own, from the renderer that drew the figure; a line counts as in a
    box when its path, widened by half its line width, enters the box (shrunk by 1 px: a label
    set just beside a line may touch it), and a marker when its disc reaches the box.
    """
    px = fig.dpi / 72
    found = []
    for ax in fig.axes:
        texts = [t for t in ax.texts if t.get_visible() and t.get_text().strip()]
        boxes = [(repr(t.get_text()), t.get_window_extent(renderer)) for t in texts]
        if ax.get_legend() is not None:
            boxes.append(("the legend", ax.get_legend().get_window_extent(renderer)))
        for line in ax.get_lines():
            if not line.get_visible():
                continue
            points = line.get_transform().transform(line.get_xydata())
            points = points[np.isfinite(points).all(axis=1)]
            stroked = line.get_linestyle() not in ("None", "none", "", " ") and len(points) > 1
            marked = line.get_marker() not in (None, "None", "none", "", " ")
            for label, box in boxes:
                inner = box.padded(-1)
                crosses = stroked and Path(points).intersects_bbox(inner.padded(line.get_linewidth() * px / 2), filled=False)
                covers = marked and any(inner.padded(line.get_markersize() * px / 2).contains(x, y) for x, y in points)
                if crosses or covers:
                    found.append(f"{label} lies on the line {line.get_label()!r}")
    return found


def test_the_overlap_check_sees_a_label_on_a_line() -> None:
    # The check itself, on a figure made to fail: a legend over a line, a label across another.
    def crowded(theme, lang, project):
        fig = matplotlib.figure.Figure(figsize=(4, 3))
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 1], label="rising")
        ax.plot([0, 1], [0.9, 0.9], label="flat")
        ax.text(0.5, 0.5, "on the diagonal", ha="center", va="center")
        ax.legend(loc="upper left")
        return fig

    with mock.patch.dict(FIGURES, {"crowded": crowded}):
        found = looked_at.__wrapped__("crowded", "en", "light")[1]
    assert "'on the diagonal' lies on the line 'rising'" in found and "the legend lies on the line 'flat'" in found, found


@pytest.mark.parametrize(("name", "lang", "scheme"), CASES)
def test_no_label_or_legend_lies_on_a_line(name: str, lang: str, scheme: str) -> None:
    found = looked_at(name, lang, scheme)[1]
    assert not found, f"{name} ({lang}, {scheme}):\n" + "\n".join(found)
