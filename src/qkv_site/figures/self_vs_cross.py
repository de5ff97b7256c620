"""Figure: self-attention inside "I love cats" next to the cross-attention of 「我 爱 猫」 on it."""

from __future__ import annotations

from matplotlib.figure import Figure

from qkv.examples import translation_example
from qkv_site.figures.heatmap import draw_weights
from qkv_site.figures.labels import text
from qkv_site.figures.style import Theme, new_figure
from qkv_site.project import Project


def draw(theme: Theme, lang: str, project: Project) -> Figure:
    """Two heatmaps: encoder self-attention (source × source) and decoder cross-attention (target × source)."""
    example = translation_example()
    t = text("self_vs_cross", lang)
    source = example.source_tokens
    target: list[str] = list(example.target_tokens)
    if lang == "en":  # the Chinese target words with their English glosses
        english = dict(zip(example.encoder.glosses, source, strict=True))
        target = [t["gloss"].format(token=token, gloss=english[token]) for token in target]

    fig = new_figure(height=3.7)
    left, right = fig.subplots(1, 2)
    draw_weights(left, example.encoder.weights, source, source, theme,
                 row_title=t["query_encoder"], col_title=t["key_encoder"])
    draw_weights(right, example.cross.weights, target, source, theme,
                 row_title=t["query_decoder"], col_title=t["key_encoder"])
    left.set_title(t["title_self"], pad=10)
    right.set_title(t["title_cross"], pad=10)
    return fig
