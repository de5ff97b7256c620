"""The learned-attention widget on paper: what it shows for the article's sentence and its twin, drawn when the site is built.

A printed page and the PDF edition cannot run the widget (docs/assets/javascripts/learned/). Beside
each ``<div class="qkv-learned-widget" data-model="<task>">`` the build writes
``learned-print-<task>.svg`` into the page's folder and puts after the widget

    <div class="qkv-learned-print" hidden><img src="learned-print-<task>.svg" loading="lazy" …></div>

On screen the block is hidden and its image lazy, and Chromium never fetches a lazy image that is not
displayed: a reader of the web page downloads nothing of it. Print (print.css) shows the block, and
Chromium loads every lazy image before it prints; the PDF edition prints it too.

The figure is the widget's view of the task's two article sentences (``sentences.article`` of the
exported model, `learned_models.export`), computed by numpy from the same exported weights the
browser reads (`learned_models.exported_model`): the answer with its probability, the row of "it" in
each layer and its rollout, each number printed as the widget prints it; a title, one line saying the
widget cannot run on paper, and where to use it (the page's address when the build knows
``site_url``). Its text is SVG text, so a PDF keeps it as text.

>>> figure = drawn_figure("coreference", "en", "https://example.org/learned-attention/", Path("benchmarks/results"))
>>> figure.panels[0].verdict
'The model reads “it” as “animal”, with probability > 99.9%.'
>>> "https://example.org/learned-attention/" in figure.svg
True
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from qkv.learning.rollout import rollout_weights
from qkv_site.builder.learned_models import WIDGET, export, exported_model, tasks_shown
from qkv_site.values.claims import largest
from qkv_site.values.formatting import fixed

# The words of the figure, per language; `answer`, `layer`, `rollout`, `percent`, `above` and `below` are the
# widget's own (widget.js STRINGS).
LABELS: dict[str, dict[str, str]] = {
    "zh": {
        "title-coreference": "动物还是地点？第一个任务的模型",
        "title-referent": "三个名词里选哪一个？第二个任务的模型",
        "lead": "网页上这里是一个交互式的小部件，纸上无法运行。下面是它对文章的句子、以及换成 “{twin}” 之后显示的结果。",
        "online": "在网页版里可以输入你自己的句子：",
        "online-unlinked": "在这一页的网页版里可以输入你自己的句子。",
        "answer": "模型认为 “it” 指的是 “{word}”，概率{p}。",
        "layer": "第 {layer} 层",
        "rollout": "rollout（两层合计）",
        "caption": "每一行是 “it” 在这一层给每个词的注意力权重（一行加起来是 1）；"
                   "rollout：经过两层之后，每个词流进 “it” 的份额。带下划线的是候选名词。",
        "alt-coreference": "第一个任务（动物还是地点）的小部件打印版：模型对文章的句子和换成 “{twin}” 之后的回答",
        "alt-referent": "第二个任务（三个名词里选一个）的小部件打印版：模型对文章的句子和换成 “{twin}” 之后的回答",
        "percent": "为 {p}%",  # the probability: "概率为 64.0%", "概率超过 99.9%"
        "above": "超过 99.9%",
        "below": "不到 0.1%",
    },
    "en": {
        "title-coreference": "The animal or the place? The first task's model",
        "title-referent": "Which of three nouns? The second task's model",
        "lead": "On the web page, an interactive widget sits here; it cannot run on paper. Below is what it shows for "
                "the article's sentence and, with “{twin}” chosen, for its twin.",
        "online": "Type your own sentence in the web edition: ",
        "online-unlinked": "The web edition of this page lets you type your own sentence.",
        "answer": "The model reads “it” as “{word}”, with probability {p}.",
        "layer": "Layer {layer}",
        "rollout": "Rollout (both layers)",
        "caption": "Each row: the attention weights of “it” in that layer (a row sums to 1); the rollout: the share of "
                   "each word in what reaches “it” through both layers. Underlined: the candidate nouns.",
        "alt-coreference": "The first task's widget (the animal or the place?) on paper: the model's answers for the "
                           "article's sentence and its “{twin}” twin",
        "alt-referent": "The second task's widget (which of three nouns?) on paper: the model's answers for the "
                        "article's sentence and its “{twin}” twin",
        "percent": "{p}%",
        "above": "> 99.9%",
        "below": "< 0.1%",
    },
}
PRINT_CLASS = "qkv-learned-print"
# The widget's heat ramp in the light scheme, 0 → 0.5 → 1 (figures/style.py LIGHT.heat, which playground.css
# repeats; tests/build/test_learned_print.py checks that they agree): written out here so that a build with no
# figure to draw still does not import matplotlib.
HEAT = ("#f3f0fa", "#c5b6ea", "#9777dc")
INK, MUTED, RULE = "#212121", "#616161", "#9e9e9e"
# A Latin font first, wherever one is installed, then a Chinese one: a CJK font's own Latin letters come with
# full-width quotes, and its proportional ones ("pwid") are glyphs without a character, which a PDF cannot give back.
FONTS = ("Helvetica, Arial, 'Liberation Sans', 'DejaVu Sans', 'Noto Sans', "
         "'Noto Sans CJK SC', 'Noto Sans SC', 'PingFang SC', 'Microsoft YaHei', sans-serif")
SIZE, SMALL, TITLE = 12, 11, 13.5  # px
LINE = 1.45  # line height, in font sizes
MARGIN, CELL_PAD, ROW = 8, 10, 22  # px
MIN_WIDTH = 560  # px: the lead and the caption wrap to the table's width, but never narrower than this


def file_name(task: str) -> str:
    """The figure's file name, in the folder of the page that shows the widget."""
    return f"learned-print-{task}.svg"


@dataclass(frozen=True)
class Panel:
    """What the widget shows for one sentence: its words, the answer line, and "it"'s rows as printed."""

    sentence: str
    words: list[str]
    it: int
    candidates: list[int]  # the words "it" may mean (the widget underlines them)
    verdict: str
    rows: list[tuple[str, list[str], list[float]]]  # (label, printed weights, weights), one per layer and the rollout


def weight_text(w: float) -> str:
    """A weight as the widget prints it: two decimals, "<0.01" for a positive weight that rounds to 0.

    >>> weight_text(0.4567), weight_text(0.003), weight_text(0.0)
    ('0.46', '<0.01', '0.00')
    """
    text = fixed(w, 2)  # refuses a weight within rounding of a boundary, where the browser might print the other digit
    return "<0.01" if text == "0.00" and w > 0 else text  # exact: a weight is 0 only when exp underflowed


def probability_text(p: float, lang: str) -> str:
    """A probability as the widget prints it: a percentage with one decimal, but never "100.0%" or "0.0%"
    for what a softmax gives (never exactly 1 or 0): "> 99.9%" and "< 0.1%" (the language's words) instead.

    >>> probability_text(0.6404, "en"), probability_text(0.99996, "en"), probability_text(0.99996, "zh")
    ('64.0%', '> 99.9%', '超过 99.9%')
    >>> probability_text(0.6404, "zh")
    '为 64.0%'

    >>> probability_text(0.00001, "en")
    '< 0.1%'
    """
    text = fixed(100 * p, 1)  # refuses a value within rounding of a boundary, where the browser might print the other digit
    if text == "100.0":  # exact: compares printed digits
        return LABELS[lang]["above"]
    if text == "0.0":  # exact: compares printed digits
        return LABELS[lang]["below"]
    return LABELS[lang]["percent"].format(p=text)


def panels(data: dict[str, Any], lang: str) -> list[Panel]:
    """The widget's view of the exported model `data` (`learned_models.export`) on its article sentences."""
    model = exported_model(data)
    sentences = data["sentences"]
    t = LABELS[lang]
    nouns = {word for kind in sentences["nouns"].values() for word in kind}
    found = []
    for sentence in sentences["article"]:
        words = model.tokens(sentence)
        weights = model.attention(sentence)  # (layers, n, n)
        rolled = rollout_weights(weights)[-1]
        it = words.index("it")
        probabilities = model.probabilities(sentence)
        answers = list(probabilities)
        best = answers[largest([probabilities[word] for word in answers])]
        verdict = t["answer"].format(word=best, p=probability_text(probabilities[best], lang))
        rows = [(t["layer"].format(layer=layer + 1), weights[layer, it]) for layer in range(len(weights))]
        rows.append((t["rollout"], rolled[it]))
        found.append(Panel(sentence, words, it, [j for j, word in enumerate(words) if word in nouns], verdict,
                           [(label, [weight_text(w) for w in row], [float(w) for w in row]) for label, row in rows]))
    return found


def twin_word(sentences: list[str]) -> str:
    """The one word in which the article's twin differs from the article's sentence ("wide")."""
    first, second = (sentence.lower().split() for sentence in sentences)
    differ = [b for a, b in zip(first, second, strict=True) if a != b]
    if len(differ) != 1:
        raise ValueError(f"the article's two sentences should differ in one word: {sentences}")
    return differ[0]


def text_width(text: str, size: float) -> float:
    """A generous estimate of `text`'s width in px at `size` px: the reader's fonts decide the real one.

    >>> text_width("it", 10), text_width("注意", 10)
    (12.0, 20.0)
    """
    wide = sum(1 for char in text if unicodedata.east_asian_width(char) in "WF" or char in "“”‘’")
    return size * (wide + 0.6 * (len(text) - wide))


def wrapped(text: str, size: float, width: float) -> list[str]:
    """`text` in lines no wider than `width` (by `text_width`): broken at spaces, or between Chinese characters.

    >>> wrapped("one two three", 10, 50)
    ['one two', 'three']
    """
    pieces = re.findall(r"[\u2e80-\u9fff\uff00-\uffef\u3000-\u303f]|[^\s\u2e80-\u9fff\uff00-\uffef\u3000-\u303f]+\s*|\s+", text)
    lines = [""]
    for piece in pieces:
        if lines[-1].strip() and text_width((lines[-1] + piece).rstrip(), size) > width:
            lines.append(piece.lstrip())
        else:
            lines[-1] += piece
    return [line.rstrip() for line in lines]


def heat(w: float) -> str:
    """The cell colour of weight `w`, as the widget mixes it (learned.css): HEAT[0] at 0, HEAT[1] at 0.5, HEAT[2] at 1."""
    low, high, t = (HEAT[0], HEAT[1], 2 * w) if w <= 0.5 else (HEAT[1], HEAT[2], 2 * w - 1)
    start, end = (np.array([int(color[i:i + 2], 16) for i in (1, 3, 5)]) for color in (low, high))
    r, g, b = np.rint(start + (end - start) * min(max(t, 0.0), 1.0)).astype(int)
    return f"#{r:02x}{g:02x}{b:02x}"


def _text(x: float, y: float, content: str, *, size: float = SIZE, middle: bool = False, bold: bool = False,
          fill: str = INK) -> str:
    """One line of text at (x, y), its start there or (`middle`) its middle."""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" fill="{fill}"'
            + (' font-weight="700"' if bold else "") + (' text-anchor="middle"' if middle else "")
            + f">{html.escape(content, quote=False)}</text>")


@dataclass(frozen=True)
class Figure:
    """A drawn figure: its SVG, its size in px, its panels and the words for its image's alt."""

    svg: str
    width: int
    height: int
    panels: list[Panel]
    alt: str


def draw(task: str, lang: str, address: str | None, shown: list[Panel], twin: str) -> Figure:
    """The SVG: title, lead, the address (or where to look without one), a panel per sentence, the caption."""
    t = LABELS[lang]
    label_width = max(text_width(label, SIZE) for panel in shown for label, _, _ in panel.rows) + CELL_PAD
    columns = [[max(text_width(word, SIZE) + 2, *(text_width(cells[j], SMALL) for _, cells, _ in panel.rows)) + CELL_PAD
                for j, word in enumerate(panel.words)] for panel in shown]
    online = t["online"] + address if address else t["online-unlinked"]
    width = round(max(MIN_WIDTH, text_width(online, SIZE), *(label_width + sum(widths) for widths in columns)) + 2 * MARGIN)
    parts: list[str] = []
    y = float(MARGIN)  # the top of what comes next

    def lines(text: str, size: float, *, bold: bool = False, fill: str = INK) -> None:
        nonlocal y
        for line in wrapped(text, size, width - 2 * MARGIN):
            y += size * LINE
            parts.append(_text(MARGIN, y - size * (LINE - 1) / 2 - 1, line, size=size, bold=bold, fill=fill))

    def cell(x: float, column: float, value: float) -> str:
        return f'<rect x="{x + 1:.1f}" y="{y + 1:.1f}" width="{column - 2:.1f}" height="{ROW - 2}" fill="{heat(value)}"/>'

    def underline(centre: float, word: str) -> str:  # dotted, as the widget marks the words "it" may mean
        half, base = text_width(word, SIZE) * 0.45, y + ROW - 3
        return (f'<line x1="{centre - half:.1f}" y1="{base:.1f}" x2="{centre + half:.1f}" y2="{base:.1f}" '
                f'stroke="{INK}" stroke-width="1" stroke-dasharray="1.5 1.5"/>')

    lines(t[f"title-{task}"], TITLE, bold=True)
    lines(t["lead"].format(twin=twin), SIZE)
    lines(online, SIZE)
    for panel, widths in zip(shown, columns, strict=True):
        y += 10
        lines(f"“{panel.sentence}”", SIZE)
        lines(panel.verdict, SIZE, bold=True)
        y += 4
        x = MARGIN + label_width
        for j, (word, column) in enumerate(zip(panel.words, widths, strict=True)):
            parts.append(_text(x + column / 2, y + ROW - 7, word, middle=True, bold=j == panel.it))
            if j in panel.candidates:
                parts.append(underline(x + column / 2, word))
            x += column
        y += ROW
        for label, cells, values in panel.rows:
            parts.append(_text(MARGIN, y + ROW - 7, label))
            x = MARGIN + label_width
            for text, value, column in zip(cells, values, widths, strict=True):
                parts += [cell(x, column, value), _text(x + column / 2, y + ROW - 7, text, size=SMALL, middle=True)]
                x += column
            y += ROW
    y += 6
    lines(t["caption"], SMALL, fill=MUTED)
    height = round(y + MARGIN)
    frame = f'<rect x="0.5" y="0.5" width="{width - 1}" height="{height - 1}" fill="#fff" stroke="{RULE}"/>'
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'lang="{"zh-Hans" if lang == "zh" else "en"}" font-family="{FONTS}">{frame}{"".join(parts)}</svg>\n')
    return Figure(svg, width, height, shown, t[f"alt-{task}"].format(twin=twin))


@cache
def drawn_figure(task: str, lang: str, address: str | None, results_dir: Path) -> Figure:
    """The figure of `task`'s widget in `lang`, from the committed model in `results_dir` (once per process)."""
    if lang not in LABELS:
        raise ValueError(f"no words for the learned widget's print figure in {lang!r}; known: {sorted(LABELS)}")
    data = export(results_dir, task)
    sentences = data["sentences"]["article"]
    return draw(task, lang, address, panels(data, lang), twin_word(sentences))


def attribute_text(text: str) -> str:
    """`text` for an attribute in double quotes (an apostrophe, as in "the model's", stays one).

    >>> attribute_text('a "twin" & “wide”')
    'a &quot;twin&quot; &amp; “wide”'
    """
    return html.escape(text, quote=False).replace('"', "&quot;")


_EMPTY_WIDGET = re.compile(WIDGET.pattern + r"\s*</div>")


def with_print_figures(html_text: str, page_file: Path, results_dir: Path, lang: str, address: str | None) -> str:
    """`html_text` with the print figure after every widget, each written beside the built page `page_file`."""
    tasks = tasks_shown(html_text)
    if not tasks:
        return html_text
    figures = {task: drawn_figure(task, lang, address, results_dir) for task in tasks}
    for task, figure in figures.items():
        target = page_file.parent / file_name(task)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(figure.svg, encoding="utf-8")

    def after(widget: re.Match[str]) -> str:
        task = tasks_shown(widget.group(0))[0]
        figure = figures[task]
        return (f'{widget.group(0)}<div class="{PRINT_CLASS}" hidden><img src="{file_name(task)}" '
                f'alt="{attribute_text(figure.alt)}" loading="lazy" width="{figure.width}" height="{figure.height}"></div>')

    result, count = _EMPTY_WIDGET.subn(after, html_text)
    if count != len(WIDGET.findall(html_text)):
        raise ValueError(f"{page_file}: a qkv-learned-widget must be an empty <div></div> (the widget fills it in the browser)")
    return result
