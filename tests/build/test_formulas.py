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
    assert "\\(" not in html and "\\frac" not in html and "<annotation" not in html  # no TeX left, not even hidden
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


# ---- the pages' formulas: flattened (qkv_site.formulas.flatten), every glyph where it was ---------------

_STEP = re.compile(r"(translate|scale)\(\s*([-\d.]+)(?:[\s,]+([-\d.]+))?\s*\)")


def drawn(svg: str) -> list[tuple[tuple[str, ...], list[float]]]:
    """Every glyph, rule, text and nested svg of a formula's svg with where it lands, worked out here on its
    own (floats, 3 × 3 matrices), not by the module under test: what it is, and its matrix (a b c d e f)."""
    import xml.etree.ElementTree as ET

    def matrix(transform: str) -> list[list[float]]:
        result = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        assert _STEP.sub("", transform).strip() == "", transform
        for name, first, second in _STEP.findall(transform):
            x = float(first)
            y = float(second) if second else (0.0 if name == "translate" else x)
            step = [[1, 0, x], [0, 1, y], [0, 0, 1]] if name == "translate" else [[x, 0, 0], [0, y, 0], [0, 0, 1]]
            result = [[sum(result[i][k] * step[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
        return result

    def times(m: list[list[float]], n: list[list[float]]) -> list[list[float]]:
        return [[sum(m[i][k] * n[k][j] for k in range(3)) for j in range(3)] for i in range(3)]

    found: list[tuple[tuple[str, ...], list[float]]] = []

    def walk(element: ET.Element, m: list[list[float]]) -> None:
        m = times(m, matrix(element.get("transform", "")))
        if element.tag in ("use", "rect", "text", "svg"):
            m = times(m, matrix(f"translate({element.get('x', '0')},{element.get('y', '0')})"))
            what = (element.tag, element.get("href", ""), element.get("width", ""), element.get("height", ""),
                    element.get("viewBox", ""), element.get("font-size", ""), element.text or "")
            found.append((what, [m[0][0], m[1][0], m[0][1], m[1][1], m[0][2], m[1][2]]))
        for child in element:
            walk(child, m)

    root = ET.fromstring(svg)
    for child in root:  # the outer svg itself is not drawn by a transform
        walk(child, [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    return found


def cached_formulas(site: Path) -> list[dict[str, object]]:
    """The formulas of the site's build, as its cache keeps them (typeset by MathJax, before any page pass)."""
    import json

    from repository import ROOT

    del site  # the build fills the cache
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted((ROOT / ".cache" / "formulas").glob("*.json"))]


def test_flattening_keeps_every_glyph_of_the_site_s_formulas_in_place(site: Path) -> None:
    from qkv_site.formulas.flatten import flatten_svg
    from qkv_site.formulas.pages import lean, share_glyphs

    formulas = cached_formulas(site)
    assert len(formulas) >= 300, f"only {len(formulas)} formulas in the build's cache"
    smaller = 0
    for formula in formulas:
        before = re.search(r"<svg\b.*</svg>", lean(share_glyphs(str(formula["html"]), {})), re.DOTALL)
        assert before is not None
        after = flatten_svg(before.group(0))
        old, new = drawn(before.group(0)), drawn(after)
        assert [what for what, _ in old] == [what for what, _ in new], f"{formula['tex']}: the drawn elements changed"
        for (what, m), (_, n) in zip(old, new, strict=True):
            assert max(abs(x - y) for x, y in zip(m, n, strict=True)) <= 1e-6, f"{formula['tex']}: {what} moved: {m} → {n}"
        assert "<g>" not in after and 'stroke="currentColor"' not in after
        assert not re.search(r'<g transform="translate\([^)]*\)">(<use [^>]*/>|<rect [^>]*/>)</g>', after), f"{formula['tex']}: {after}"
        smaller += len(after) < len(before.group(0))
    assert smaller == len(formulas)


@pytest.mark.parametrize(("svg", "complaint"), [
    ('<svg><g stroke="currentColor" fill="currentColor" stroke-width="0" transform="scale(1,-1)"><line x1="0" x2="9"/></g></svg>',
     "element this pass does not know: <line>"),
    ('<svg><g stroke="currentColor" fill="currentColor" stroke-width="0" transform="scale(1,-1)"><g transform="rotate(30)">'
     '<use href="#a"/></g></g></svg>', "transform this pass does not know"),
    ('<svg><g stroke="currentColor" fill="currentColor" stroke-width="0" transform="scale(1,-1)"><use href="#a" class="x"/></g></svg>',
     "attributes of <use> this pass does not know: ['class']"),
    ('<svg><g stroke="currentColor" fill="red" stroke-width="0" transform="scale(1,-1)"><use href="#a"/></g></svg>',
     "fill='red'"),
    ('<svg><g transform="translate(1,0)"><use href="#a"/></g></svg>', "without MathJax's one flipping group"),
    ('<svg><g stroke="currentColor" fill="currentColor" stroke-width="0" transform="scale(1,-1)"><g>x<use href="#a"/></g></g></svg>',
     "text inside <g>"),
    ('<svg><g stroke="currentColor" fill="currentColor" stroke-width="0" transform="scale(1,-1)"><use href="#a"></svg>', "cannot read"),
])
def test_flattening_stops_at_markup_it_does_not_know(svg: str, complaint: str) -> None:
    from qkv_site.formulas.flatten import FormulaMarkupError, flatten_svg

    with pytest.raises(FormulaMarkupError) as error:
        flatten_svg(svg)
    assert complaint in str(error.value)


def test_the_geometry_check_sees_a_glyph_moved_by_a_thousandth_of_a_unit() -> None:
    from qkv_site.formulas.flatten import placements

    group = '<svg><g transform="scale(1,-1)"><g transform="translate(553,-150) scale(0.707)"><use href="#a" x="{}"/></g></g></svg>'
    assert placements(group.format("500")) == placements(group.format("500.000"))
    assert placements(group.format("500")) != placements(group.format("500.001"))


def test_the_pages_formulas_carry_no_tex_and_no_groups_that_only_move(site: Path) -> None:
    from site_pages import built_path

    for lang in ("zh", "en"):
        html = built_path(site, "worked-example.md", lang).read_text(encoding="utf-8")
        assert html.count("<mjx-container") >= 50
        assert "<annotation" not in html and "application/x-tex" not in html
        assert "<g>" not in html and 'stroke-width="0"' not in html
