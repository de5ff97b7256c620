"""qkv_site.search.text: what the search index reads of a page."""

from __future__ import annotations

import pytest

from qkv_site.search.text import search_view

CODE_TAB = (
    '<div class="tabbed-set tabbed-alternate" data-tabs="1:2"><input checked id="exec-3--__tabbed_1_1" name="t" type="radio">'
    '<input id="exec-3--__tabbed_1_2" name="t" type="radio"><div class="tabbed-labels"><label>结果</label><label>代码</label></div>'
    '<div class="tabbed-content"><div class="tabbed-block"><p>权重是 64%。</p></div>'
    '<div class="tabbed-block"><div class="highlight"><pre><code>print(display("A =", bmatrix(w)))</code></pre></div></div></div></div>'
)


def test_a_code_tab_goes_and_its_result_stays() -> None:
    view = search_view(CODE_TAB)
    assert "权重是 64%。" in view
    assert "print(display(" not in view and "结果" not in view and "代码" not in view


def test_how_a_section_is_computed_the_figure_code_link_and_a_solution_go() -> None:
    html = (
        '<p>权重是 64%。</p><details class="example"><summary>这一节是怎么算的</summary>'
        '<div class="highlight"><pre><code>print(weights.round(2))</code></pre></div></details>'
        '<figure><figcaption>热力图。 <a class="figure-source" href="https://example.org/x.py">绘图代码</a></figcaption></figure>'
        '<h3 id="exercise-1">练习 1：减去最大值</h3><p>为什么结果不变？</p>'
        '<details class="success"><summary>解答</summary><p>每行减去最大值。</p></details>'
    )
    view = search_view(html)
    assert "权重是 64%。" in view and "热力图。" in view and "为什么结果不变？" in view  # an exercise's question stays
    assert "这一节是怎么算的" not in view and "print(weights" not in view and "绘图代码" not in view
    assert "解答" not in view and "每行减去最大值。" not in view  # its folded solution is not the page's text


def test_a_plain_code_block_stays() -> None:
    html = '<p>试试：</p><div class="highlight"><pre><code>print(weights)</code></pre></div>'
    assert "print(weights)" in search_view(html)


def test_an_inline_formula_reads_as_the_plain_text_the_formula_hook_marked() -> None:
    view = search_view('<h2 id="s">除以 <span class="arithmatex" data-formula="k1">√dₖ</span></h2>')
    assert view == '<h2 id="s">除以 √dₖ</h2>'


@pytest.mark.parametrize(
    "formula",
    [
        '<span class="arithmatex">\\(\\sqrt{d_k}\\)</span>',  # TeX the formula hook never saw
        '<mjx-container jax="SVG"><svg><path d="M0 0"/></svg></mjx-container>',
        '<math><msqrt><mi>d</mi></msqrt></math>',
    ],
)
def test_a_formula_without_its_marker_stops_the_build(formula: str) -> None:
    with pytest.raises(ValueError, match="without its plain-text marker"):
        search_view(f"<p>除以 {formula}</p>")


@pytest.mark.parametrize(
    "formula",
    [
        '<div class="arithmatex" data-formula="k2">X = [1 0]</div>',  # a display formula, as the formula hook marks it
        '<svg viewBox="0 0 1 1"><text>0.64</text></svg>',
    ],
)
def test_a_display_formula_or_svg_goes(formula: str) -> None:
    assert search_view(f"<p>前</p>{formula}<p>后</p>") == "<p>前</p><p>后</p>"




def test_a_table_reads_as_one_paragraph_per_row() -> None:
    html = ('<table><thead><tr><th>术语</th><th>中文</th></tr></thead>'
            '<tbody><tr><td><strong>Query</strong></td><td>查询</td></tr><tr><td>Key</td><td>键</td></tr></tbody></table>')
    assert search_view(html) == "<p>术语 · 中文</p><p><strong>Query</strong> · 查询</p><p>Key · 键</p>"


NOTEBOOK = (
    '<!-- notebook styles --><div class="jupyter-wrapper"><div class="jp-Notebook">'
    '<div class="jp-Cell jp-MarkdownCell"><div class="jp-Collapser"></div><div class="jp-InputArea">'
    '<div class="jp-RenderedMarkdown"><h1 id="hands-on">动手</h1><p>这个 Notebook 复现例子。</p></div></div></div>'
    '<div class="jp-Cell jp-CodeCell"><div class="jp-InputPrompt">In [1]:</div>'
    '<div class="zeroclipboard-container"><span class="notice" hidden>Copied!</span></div>'
    '<div class="highlight-ipynb"><pre>print(q)</pre></div><div class="clipboard-copy-txt">print(q)</div></div>'
    '<div class="jp-Cell jp-MarkdownCell"><div class="jp-RenderedMarkdown"><h2 id="step-5">第五步</h2></div></div>'
    '<div class="jp-Cell jp-CodeCell"><div class="highlight-ipynb"><pre>print(output)</pre></div></div>'
    '</div></div>'
)


def test_a_notebooks_headings_hold_the_cells_after_them() -> None:
    view = search_view(NOTEBOOK)
    assert view.startswith('<h1 id="hands-on">'), view[:80]  # nothing before the page's title makes a section of its own
    # Material's index gives a section what follows its heading until the next one: each cell after its heading
    assert view.index('<h1 id="hands-on">') < view.index("print(q)") < view.index('<h2 id="step-5">') < view.index("print(output)")
    assert view.count("print(q)") == 1, "the hidden copy of a cell's code is indexed"
    assert "In [1]:" not in view and "Copied!" not in view
