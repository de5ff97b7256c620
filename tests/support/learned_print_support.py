"""Reading the learned widget's print figure back (qkv_site.builder.learned_print): its lines of text, and per
sentence what it shows, as the tests compare it with the widget, with numpy and with the printed pages."""

from __future__ import annotations

import html
import re
from pathlib import Path

from site_pages import built_path

from qkv_site.builder.learned_print import LABELS, file_name

LEARNED = "learned-attention.md"
TASKS = ("coreference", "referent")


def figure_path(site: Path, lang: str, task: str) -> Path:
    """Where the build wrote the print figure of `task`'s widget on the learned-attention page of `lang`."""
    return built_path(site, LEARNED, lang).parent / file_name(task)


def figure_texts(svg: str) -> list[str]:
    """Every <text> of the figure, in drawing order."""
    return [html.unescape(text) for text in re.findall(r"<text\b[^>]*>([^<]*)</text>", svg)]


def printed_panels(svg: str, lang: str) -> list[dict[str, object]]:
    """Per sentence of the figure: its verdict line, its words, and each row (layer 1, layer 2, rollout) as
    {label: the printed cells}, read from the figure's texts (verdict, words, then label + one cell per word)."""
    texts = figure_texts(svg)
    verdict = re.compile(re.escape(LABELS[lang]["answer"]).replace(r"\{word\}", ".+").replace(r"\{p\}", ".+"))
    labels = [LABELS[lang]["layer"].format(layer=1), LABELS[lang]["layer"].format(layer=2), LABELS[lang]["rollout"]]
    panels = []
    for at, text in enumerate(texts):
        if not verdict.fullmatch(text):
            continue
        first_label = texts.index(labels[0], at)
        words = texts[at + 1:first_label]
        rows, cursor = {}, first_label
        for label in labels:
            assert texts[cursor] == label, (texts[cursor], label)
            rows[label] = texts[cursor + 1:cursor + 1 + len(words)]
            cursor += 1 + len(words)
        panels.append({"verdict": text, "words": words, "rows": rows})
    return panels
