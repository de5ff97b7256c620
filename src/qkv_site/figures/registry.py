"""The list of figures and `render_all`, which writes them as SVG into a folder (the build's ``.cache/figures/``)
once per change."""

from __future__ import annotations

import io
import logging
import warnings
from collections.abc import Callable
from pathlib import Path

import matplotlib
from matplotlib.figure import Figure

from qkv_site.cache_files import atomic_write
from qkv_site.figures import (
    asymmetry,
    attention_time,
    dot_variance,
    it_animal,
    kv_cache_sizes,
    learned_it,
    learned_referent,
    learned_scaling,
    learned_snapshots,
    learned_training,
    memory,
    pipeline,
    self_vs_cross,
    softmax_saturation,
    tiled_memory,
    worked_weights,
)
from qkv_site.figures.compact import coarse, compact
from qkv_site.figures.stamp import STAMP, source_digest
from qkv_site.figures.style import THEMES, Theme, rc
from qkv_site.project import Project

Draw = Callable[[Theme, str, Project], Figure]

# name → draw(theme, lang, project); the page shows figures/{name}.{scheme}.svg of its language
# (the project is where a figure of measurements finds the committed benchmark results)
FIGURES: dict[str, Draw] = {
    "worked_weights": worked_weights.draw,
    "dot_variance": dot_variance.draw,
    "softmax_saturation": softmax_saturation.draw,
    "asymmetry": asymmetry.draw,
    "self_vs_cross": self_vs_cross.draw,
    "memory": memory.draw,
    "it_animal": it_animal.draw,
    "pipeline": pipeline.draw,
    "tiled_memory": tiled_memory.draw,
    "attention_time": attention_time.draw,
    "kv_cache_sizes": kv_cache_sizes.draw,
    "learned_it": learned_it.draw,
    "learned_training": learned_training.draw,
    "learned_snapshots": learned_snapshots.draw,
    "learned_scaling": learned_scaling.draw,
    "learned_referent": learned_referent.draw,
}
SCHEMES = tuple(THEMES)  # ("light", "dark"), Material's default and slate

# Without a metadata date or tool version, an unchanged figure gives byte-identical SVG.
SVG_METADATA = {"Date": None, "Creator": None}
BACKEND = "module://qkv_site.figures.svg_text"  # labels as <text> fitted to matplotlib's layout


class MissingGlyphError(RuntimeError):
    """A label uses a character the figure font cannot draw (matplotlib would measure a box, and the fonts a
    reader's system has for Chinese, which cover the same repertoire, could not be counted on to draw it)."""


def render_svg(draw: Draw, lang: str, scheme: str, project: Project) -> bytes:
    """Draw one figure in one language and colour scheme and return its SVG.

    matplotlib only warns "Glyph … missing from font(s)" (when it measures a label, whether it is then
    written as text or outlines) and goes on, and in a label with a formula only logs that it draws a dummy
    symbol; here either raises `MissingGlyphError`, so a bad label fails the build instead of the page.
    """
    theme = THEMES[scheme]
    dummies = _DummyGlyphs()
    mathtext = logging.getLogger("matplotlib.mathtext")
    mathtext.addHandler(dummies)
    with matplotlib.rc_context(rc(theme)), warnings.catch_warnings():  # type: ignore[arg-type]  # rc keys as plain str
        warnings.filterwarnings("error", message=r".*Glyph.*missing")
        try:
            fig = draw(theme, lang, project)
            buffer = io.BytesIO()
            fig.savefig(buffer, format="svg", metadata=SVG_METADATA, bbox_inches="tight", pad_inches=0.06, backend=BACKEND)
        except UserWarning as warning:  # only the glyph warning is turned into an error above
            raise MissingGlyphError(f"{draw.__module__} ({lang}, {scheme}): {warning}") from warning
        finally:
            mathtext.removeHandler(dummies)
    if dummies.messages:
        raise MissingGlyphError(f"{draw.__module__} ({lang}, {scheme}): a glyph missing from the fonts: {dummies.messages[0]}")
    return compact(coarse(buffer.getvalue().decode("utf-8"))).encode("utf-8")


class _DummyGlyphs(logging.Handler):
    """matplotlib's mathtext does not warn of a character its fonts lack: it logs "Font … does not have a
    glyph for …, substituting with a dummy symbol" and draws that. Collected here, it fails the render."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "does not have a glyph" in record.getMessage():
            self.messages.append(record.getMessage())


def _write_if_changed(path: Path, content: bytes) -> bool:
    # Unchanged files are not touched, so `mkdocs serve` sees no change and does not rebuild.
    if path.exists() and path.read_bytes() == content:
        return False
    atomic_write(path, content)  # readers see the old file or the new one, never half of one
    return True


def render_all(root: Path, project: Project, languages: tuple[str, ...] | None = None) -> list[Path]:
    """Write every figure of ``project`` to ``root/{lang}/figures/{name}.{scheme}.svg`` for each of
    ``languages`` (by default the project's); return the files written.

    A language whose ``figures/.stamp`` already holds `source_digest(project)` is skipped, so a
    second call (the i18n plugin builds once per language; `mkdocs serve` rebuilds on every
    change) costs one hash and writes nothing. SVGs with the same bytes as before are not
    rewritten, and SVGs of figures that no longer exist are deleted. The stamp is written
    last, so an interrupted render is redone next time.
    """
    digest = source_digest(project)
    written: list[Path] = []
    for lang in project.languages if languages is None else languages:
        folder = Path(root) / lang / "figures"
        stamp = folder / STAMP
        if stamp.exists() and stamp.read_text(encoding="utf-8") == digest:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        expected = set()
        for name, draw in FIGURES.items():
            for scheme in SCHEMES:
                path = folder / f"{name}.{scheme}.svg"
                expected.add(path)
                if _write_if_changed(path, render_svg(draw, lang, scheme, project)):
                    written.append(path)
        for stale in set(folder.glob("*.svg")) - expected:
            stale.unlink()
        _write_if_changed(stamp, digest.encode())
    return written
