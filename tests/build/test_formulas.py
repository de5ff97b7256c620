"""qkv_site.formulas: TeX typeset at build time, cached on disk, and a broken formula stops the build."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from build_support import build_site
from repository import the_project

from qkv_site.formulas import FormulaCache, FormulaError, mark_formulas, plain_text


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory):
    formulas = FormulaCache(tmp_path_factory.mktemp("formulas"))
    yield formulas
    formulas.close()


@pytest.mark.parametrize(("tex", "text"), [
    (r"\sqrt{d_k}", "√dₖ"),
    (r"QK^T", "QKᵀ"),
    (r"\frac{QK^T}{\sqrt{d_k}}", "QKᵀ/√dₖ"),
    (r"e^{z_i}", "e^(zᵢ)"),
    (r"\text{softmax}(x)_i \approx 0.64", "softmax(x)ᵢ ≈ 0.64"),
])
def test_plain_text_of_a_formula(cache: FormulaCache, tex: str, text: str) -> None:
    assert cache.get(tex, display=False).text == text


def test_a_typeset_formula_is_svg_with_mathml_and_its_tex(cache: FormulaCache) -> None:
    html = cache.get(r"X = \begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}", display=True).html
    assert html.startswith('<mjx-container class="MathJax" jax="SVG" display="true"')
    assert 'aria-hidden="true"' in html and 'focusable="false"' in html and "tabindex" not in html
    assert 'fill="currentColor"' in html
    assert "<mjx-assistive-mml" in html and "<mtable" in html
    assert r'<annotation encoding="application/x-tex">X = \begin{bmatrix} 1 &amp; 0 \\ 0 &amp; 1 \end{bmatrix}</annotation>' in html


@pytest.mark.parametrize(("tex", "reason"), [(r"\frac{a}{", "Missing close brace"), (r"\sqrtt{2}", r"Undefined control sequence \sqrtt")])
def test_tex_that_mathjax_cannot_read_is_an_error_naming_it(cache: FormulaCache, tex: str, reason: str) -> None:
    with pytest.raises(FormulaError) as error:
        cache.get(tex, display=False)
    assert tex in str(error.value) and reason in str(error.value)


def test_the_second_cache_on_the_same_folder_typesets_nothing(tmp_path: Path) -> None:
    first = FormulaCache(tmp_path)
    made = first.get(r"\sum_{j=1}^{n} e^{z_j}", display=True)
    first.close()
    second = FormulaCache(tmp_path)
    assert second.get(r"\sum_{j=1}^{n} e^{z_j}", display=True) == made
    assert (first.typeset, second.typeset, second.reused) == (1, 0, 1)


def test_notebook_math_in_text_but_not_in_code_or_scripts(cache: FormulaCache) -> None:
    html = '<p>with $d_k = 3$:</p><p>$$QK^T$$</p><code>$x$</code><script>`${a}$`</script>'
    marked = mark_formulas(html, cache.keyed, notebook=True)
    assert marked.count('class="arithmatex"') == 2
    assert '<div class="arithmatex"' in marked and "<p><div" not in marked
    assert "<code>$x$</code><script>`${a}$`</script>" in marked
    assert plain_text("<math><mi>x</mi></math>") == "x"


# ---- the hook in a real (tiny) strict build -----------------------------------------------------

def tiny_site(folder: Path, page: str) -> Path:
    """A strict build of two pages with only the site's plugin and arithmatex: docs/index.md and docs/why.md
    (``page``), each with the description the plugin asks for; its figures are drawn from the repository's
    committed results (the plugin's ``results_dir``)."""
    described = "---\ndescription: A page of the test.\n---\n\n"
    (folder / "docs").mkdir(parents=True, exist_ok=True)
    (folder / "docs" / "index.md").write_text(described + "# Home\n", encoding="utf-8")
    (folder / "docs" / "why.md").write_text(described + page, encoding="utf-8")
    config = folder / "mkdocs.yml"
    config.write_text(textwrap.dedent(f"""\
        site_name: formulas
        strict: true
        plugins:
          - qkv-site:
              results_dir: {the_project().results_dir}
        markdown_extensions:
          - toc
          - pymdownx.arithmatex:
              generic: true
        """), encoding="utf-8")
    return config


@pytest.mark.build  # builds a small site of its own
def test_a_broken_formula_fails_the_strict_build_naming_the_page_and_the_tex(tmp_path: Path) -> None:
    config = tiny_site(tmp_path, "# Fine\n\nA good one $x^2$ and a broken one $\\frac{a}{b$.\n")
    result = build_site(tmp_path / "site", config)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-2000:]
    assert "why.md" in output and r"\\frac{a}{b" in output and "Missing close brace" in output, output[-2000:]


@pytest.mark.build  # builds a small site of its own
def test_a_rebuild_that_changes_no_formula_typesets_none(tmp_path: Path) -> None:
    config = tiny_site(tmp_path, "# Why \\(\\sqrt{d_k}\\)\n\n$$\\text{softmax}(z_i) = \\frac{e^{z_i}}{\\sum_j e^{z_j}}$$\n")
    first = build_site(tmp_path / "site", config)
    assert first.returncode == 0, first.stderr[-2000:]
    assert "formulas: 2 typeset by MathJax" in first.stderr, first.stderr[-2000:]  # the heading's (also in the TOC), the display
    second = build_site(tmp_path / "site", config)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "formulas: 0 typeset by MathJax" in second.stderr, second.stderr[-2000:]
    html = (tmp_path / "site" / "why" / "index.html").read_text(encoding="utf-8")
    outside_annotations = re.sub(r"<annotation\b.*?</annotation>", "", html, flags=re.DOTALL)
    assert "\\(" not in outside_annotations and "\\frac" not in outside_annotations
    assert "<title>Why √dₖ - formulas</title>" in html, html[:600]


def test_a_page_carries_each_glyph_outline_once_and_every_formula_finds_its_glyphs(site: Path) -> None:
    from site_pages import built_page, nav_sources

    from qkv_site.formulas.pages import GLYPHS_ID

    for lang in ("zh", "en"):
        for source in nav_sources():
            soup = built_page(site, source, lang)
            uses = soup.select("mjx-container use")
            if not uses:
                continue
            where = f"{lang}/{source}"
            shared = soup.find(id=GLYPHS_ID)
            assert shared is not None and shared.find_parent("article") is not None, f"{where}: no shared glyphs in the article"
            outlines = [path["id"] for path in shared.select("path")]
            assert len(outlines) == len(set(outlines)), f"{where}: a glyph defined twice"
            assert not soup.select("mjx-container defs"), f"{where}: a formula keeps its own outlines"
            ids = {element["id"] for element in soup.find_all(id=True)}
            refs = {use.get("xlink:href") or use.get("href") for use in uses}
            assert {ref[1:] for ref in refs} <= ids, f"{where}: glyphs no element defines: {sorted(refs)[:3]}"
            assert {ref[1:] for ref in refs} == set(outlines), f"{where}: outlines no formula uses"
            toc = [use for use in soup.select("nav.md-nav--secondary mjx-container use")]
            assert all((use.get("xlink:href") or use.get("href"))[1:] in ids for use in toc)


def test_a_cached_formula_still_draws_on_its_own(cache: FormulaCache) -> None:
    from qkv_site.formulas.pages import share_glyphs

    markup = cache.get(r"\text{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V", display=True).html
    defined = set(re.findall(r'<path id="([^"]+)"', markup))
    used = {ref for ref in re.findall(r'href="#([^"]+)"', markup)}
    assert used and used <= defined, "the cached formula is not self-contained"
    glyphs: dict[str, str] = {}
    shared = share_glyphs(markup, glyphs)
    assert "<defs>" not in shared and len(glyphs) == len(defined)
    assert set(re.findall(r'href="#MJX-([^"]+)"', shared)) == set(glyphs)
