"""qkv_site.search_text: what the search index reads of a page."""

from __future__ import annotations

import pytest

from qkv_site.search_text import search_view, tex_to_text


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"\(\sqrt{d_k}\)", "√dₖ"),
        (r"O(n^2 \cdot d)", "O(n² · d)"),
        (r"A_{i,j} \neq A_{j,i}", "A_i,j ≠ A_j,i"),
        (r"\frac{1}{\sqrt{d_k}}", "1/√dₖ"),
        (r"\text{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V", "softmax(QKᵀ/√dₖ)V"),
        (r"e^{s-m}", "e^(s-m)"),
        (r"h_{kv}", "hₖᵥ"),
    ],
)
def test_tex_to_text(tex: str, text: str) -> None:
    assert tex_to_text(tex) == text


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


@pytest.mark.parametrize(
    "formula",
    [
        '<span class="arithmatex">\\(\\sqrt{d_k}\\)</span>',  # arithmatex, for MathJax in the browser
        '<span class="arithmatex"><mjx-container jax="SVG" data-tex="\\sqrt{d_k}"><svg><path d="M0 0"/></svg></mjx-container></span>',
        '<math alttext="\\sqrt{d_k}"><msqrt><msub><mi>d</mi><mi>k</mi></msub></msqrt></math>',
        '<span class="katex"><math><semantics><mrow><mi>d</mi></mrow><annotation encoding="application/x-tex">\\sqrt{d_k}</annotation></semantics></math></span>',
    ],
)
def test_an_inline_formula_reads_as_text_however_it_is_rendered(formula: str) -> None:
    view = search_view(f'<h2 id="s">除以 {formula}</h2>')
    assert view == '<h2 id="s">除以 √dₖ</h2>'


@pytest.mark.parametrize(
    "formula",
    [
        '<div class="arithmatex">\\[X = \\begin{bmatrix} 1 &amp; 0 \\end{bmatrix}\\]</div>',
        '<mjx-container display="true"><svg><path d="M0 0"/></svg></mjx-container>',
        '<svg viewBox="0 0 1 1"><text>0.64</text></svg>',
    ],
)
def test_a_display_formula_or_svg_goes(formula: str) -> None:
    assert search_view(f"<p>前</p>{formula}<p>后</p>") == "<p>前</p><p>后</p>"


def test_notebook_markdown_tex_reads_as_text() -> None:
    html = '<div class="jp-RenderedMarkdown"><p>$$\\frac{a}{b}$$ 其中 $d_k$ 是维度，<code>$x$</code></p></div>'
    assert search_view(html) == '<div class="jp-RenderedMarkdown"><p>  其中 dₖ 是维度，<code>$x$</code></p></div>'
