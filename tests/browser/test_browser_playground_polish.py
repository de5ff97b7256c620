"""The playground's finish in a real browser: whole values in the cells, one number format per matrix,
tiny weights told from masked ones, a share status that goes away, broken links that say so, a hover
explanation that adds up, typeset labels, a phone keyboard with a minus, and a heatmap whose colour
grows stronger with the weight in both schemes."""

from __future__ import annotations

import re

import numpy as np
import pytest
from browser_support import DESKTOP
from playground_support import ROOT_SELECTOR, cell, displayed, expected, open_page, state_hash, url_of
from playwright.sync_api import expect

from qkv_site.figures.style import contrast  # WCAG 2, as the figures are checked

INTEGER = re.compile(r"-?\d+")
DECIMAL = re.compile(r"-?\d+\.\d\d|<0\.01")


@pytest.fixture
def tab(page):
    """The page fixture (conftest.py): a desktop tab, checked for JavaScript errors and requests to other hosts."""
    return page


def masked_cells(root) -> dict[str, list[tuple[int, int]]]:
    return root.evaluate(
        """r => Object.fromEntries([...r.querySelectorAll('table[data-matrix]')].map(t => [t.dataset.matrix,
             [...t.querySelectorAll('td.qkv-pg-masked')].map(td => [+td.dataset.row, +td.dataset.col])]))"""
    )


# ---- cells ----


@pytest.mark.parametrize("width", [375, 1280])
def test_a_cell_shows_its_whole_value(tabs, server, width: int) -> None:
    with tabs.open(server, viewport={"width": width, "height": 800}) as opened:
        root = open_page(opened.page, url_of(server, "en"))
        for text in ("123.456", "-0.0625", "1"):
            target = cell(root, "x", 0, 1)
            target.fill(text)
            clipped = target.evaluate("n => n.scrollWidth - n.clientWidth")
            assert clipped <= 0, f"{text!r} is cut off by {clipped} px at {width} px"
        assert opened.page.evaluate("document.scrollingElement.scrollWidth") <= width


def test_cells_take_a_minus_from_a_phone_keyboard(tab, server) -> None:
    # iOS's inputmode="decimal" pad has no minus key: the cells ask for the text keyboard instead,
    # with a pattern saying which text is a number.
    root = open_page(tab, url_of(server, "zh"))
    target = cell(root, "w_q", 0, 0)
    assert target.get_attribute("inputmode") == "text"
    assert target.get_attribute("pattern")
    for text, valid in [("-1.5", True), ("−2", True), ("－３", True), ("1e2", True), (".5", True),
                        ("-", False), ("abc", False), ("1,5", False)]:
        target.fill(text)
        assert target.evaluate("n => n.validity.valid") is valid, text
        assert (target.get_attribute("aria-invalid") is None) is valid, text


# ---- numbers ----


def test_one_number_format_per_matrix(tab, server) -> None:
    x = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]], dtype=float)
    w = np.eye(4)
    w_v = np.array([[0.5, 1], [1, 0], [0, 1], [1, 1]])
    state = state_hash(["a", "b", "c"], x, w, w, w_v, scaling="sqrt_d_k", causal=True)
    root = open_page(tab, url_of(server, "en", state=state))
    shown, masked = displayed(root), masked_cells(root)
    for name, rows in shown.items():
        cells = [text for i, row in enumerate(rows) for j, text in enumerate(row) if [i, j] not in masked[name]]
        integers = [bool(INTEGER.fullmatch(text)) for text in cells]
        decimals = [bool(DECIMAL.fullmatch(text)) for text in cells]
        assert all(integers) or all(decimals), f"{name} mixes formats: {rows}"
    assert all(INTEGER.fullmatch(text) for row in shown["scores"] for text in row)  # X·I·Iᵀ·Xᵀ: integers
    assert shown["weights"][0] == ["1.00", "0", "0"]  # the first token sees only itself; "0" is masked
    assert masked["weights"] == [[0, 1], [0, 2], [1, 2]]
    output = expected(x, w, w, w_v, causal=True)["output"][0]  # = V's first row: (0.5, 2)
    assert shown["output"][0] == [f"{v:.2f}" for v in output] == ["0.50", "2.00"]  # "2.00", not "2", next to "0.50"


def test_a_tiny_weight_is_told_apart_from_a_masked_zero(tab, server) -> None:
    # No scaling and scores 25 apart: the off-diagonal weights are e^-25, about 1e-11.
    x = np.array([[5, 0], [0, 5], [5, 5]], dtype=float)
    state = state_hash(["a", "b", "c"], x, np.eye(2), np.eye(2), np.eye(2), scaling="none", causal=True)
    root = open_page(tab, url_of(server, "zh", state=state))
    want = expected(x, np.eye(2), np.eye(2), np.eye(2), scaling="none", causal=True)["weights"]
    assert 0 < want[1, 0] < 1e-10
    weights = displayed(root)["weights"]
    assert weights[1][0] == "<0.01"  # tiny, not masked
    assert weights[0][1] == "0"  # masked
    masked = root.locator('table[data-matrix="weights"] td[data-row="0"][data-col="1"]')
    tiny = root.locator('table[data-matrix="weights"] td[data-row="1"][data-col="0"]')
    assert "qkv-pg-masked" in masked.get_attribute("class") and masked.get_attribute("title") == "被掩码遮住"
    assert not tiny.get_attribute("class")
    # and they look different: a masked cell has no fill and a dashed frame
    looks = lambda td: td.evaluate("n => [getComputedStyle(n).backgroundColor, getComputedStyle(n).outlineStyle]")  # noqa: E731
    assert looks(masked)[1] == "dashed" and looks(tiny)[1] != "dashed"
    assert looks(masked)[0] != looks(tiny)[0]


# ---- sharing ----


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_link_copied_goes_away(tab, server, lang: str) -> None:
    root = open_page(tab, url_of(server, lang))
    status = root.locator('[data-role="share-status"]')
    share = root.locator('button[data-role="share"]')
    share.click()
    expect(status).to_have_text("链接已复制" if lang == "zh" else "Link copied")
    expect(status).to_have_text("", timeout=15_000)  # after a few seconds
    share.click()
    expect(status).not_to_have_text("")
    cell(root, "x", 0, 0).fill("2")  # or at the next edit
    expect(status).to_have_text("")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_broken_share_link_says_so(tab, server, lang: str) -> None:
    notice = f"{ROOT_SELECTOR} [data-role='bad-link']"
    for broken in ("p=article&x=1,2;3&q=%E0%A4%A&k=&v=", "p=article&t=I,love&x=1,0,1,0&q=1&k=1&v=1&s=sqrt_d_k&m=0"):
        root = open_page(tab, url_of(server, lang, state=broken))
        expect(tab.locator(notice)).to_be_visible()
        assert ("读不出来" if lang == "zh" else "could not be read") in tab.locator(notice).inner_text()
        assert displayed(root)["weights"] == [["0.64", "0.36"], ["0.36", "0.64"]]  # the article's example
    cell(root, "x", 0, 0).fill("2")  # the reader has moved on: the notice goes
    expect(tab.locator(notice)).to_have_count(0)
    # a link to a heading is not a share link, and a good share link is read without a word
    for fine in ("try-it", state_hash(["I", "love"], [[1, 0], [0, 1]], np.eye(2), np.eye(2), np.eye(2))):
        open_page(tab, url_of(server, lang, state=fine))
        expect(tab.locator(notice)).to_have_count(0)


# ---- the hover explanation ----


def test_the_hover_explanation_adds_up_or_says_it_rounds(tab, server) -> None:
    third = 1 / 3
    x = np.array([[third, 1], [1, 0.5]])
    state = state_hash(["a", "b"], x, np.eye(2), np.eye(2), np.eye(2))
    root = open_page(tab, url_of(server, "en", state=state))
    explain = root.locator('[data-role="explain"]')
    # Q = X (identity W_Q): row a is (0.33, 1.00), K row b is (1.00, 0.50); 1/3 + 0.5 is not 0.33 + 0.50
    root.locator('table[data-matrix="scores"] td[data-row="0"][data-col="1"]').hover()
    text = explain.inner_text()
    assert "0.33×1.00 + 1.00×0.50 ≈ 0.83" in text and "rounded" in text
    # Q row b · K row b = 1×1 + 0.5×0.5 = 1.25 exactly: "=" and no note
    root.locator('table[data-matrix="scores"] td[data-row="1"][data-col="1"]').hover()
    text = explain.inner_text()
    assert text.endswith("1.00×1.00 + 0.50×0.50 = 1.25"), text
    # every factor written out is a number the Q and K tables show
    q_shown = displayed(root)["q"][1]
    assert all(value in text for value in q_shown)


def test_the_hover_explanation_of_the_article_is_exact_in_chinese(tab, server) -> None:
    root = open_page(tab, url_of(server, "zh"))
    root.locator('table[data-matrix="scores"] td[data-row="0"][data-col="1"]').hover()
    text = root.locator('[data-role="explain"]').inner_text()
    assert text.endswith("2×0 + 0×1 + 1×1 = 1") and "四舍五入" not in text


# ---- labels ----


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_control_labels_are_typeset_like_the_formulas(tab, server, lang: str) -> None:
    root = open_page(tab, url_of(server, lang))
    controls = root.locator(".qkv-pg-controls")
    assert "_" not in controls.inner_text(), controls.inner_text()
    for role, sub in (("d_model", "model"), ("d_k", "k"), ("d_v", "v")):
        label = root.locator(f'label:has(select[data-role="{role}"])')
        assert label.locator("i").first.inner_text() == "d"
        assert label.locator("sub").inner_text() == sub
    root_label = root.locator('label:has(input[data-role="scaling"][value="sqrt_d_k"])')
    assert root_label.locator(".qkv-pg-radicand sub").inner_text() == "k"
    has_bar = root_label.locator(".qkv-pg-radicand").evaluate("n => getComputedStyle(n).borderTopStyle")
    assert has_bar == "solid"  # the bar of the square root over d_k
    assert root.locator('label:has(input[data-role="scaling"][value="d_k"]) sub').inner_text() == "k"


# ---- the heatmap ----


def _rgb(css: str) -> tuple[float, float, float]:
    numbers = [float(v) for v in re.findall(r"[\d.]+", css)]
    if css.startswith("color(srgb"):
        return tuple(numbers[:3])
    return tuple(v / 255 for v in numbers[:3])


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_more_attention_is_a_stronger_colour_in_the_playground(tabs, server, scheme: str) -> None:
    with tabs.open(server, viewport=DESKTOP, color_scheme=scheme) as opened:
        page = opened.page
        root = open_page(page, url_of(server, "en"))
        root.locator('select[data-role="preset"]').select_option("it-animal")  # weights from 0.01 to 0.83
        cells = root.evaluate(
            """r => [...r.querySelectorAll('table[data-matrix="weights"] tbody td')].map(td => ({
                 w: parseFloat(td.style.getPropertyValue('--w')), bg: getComputedStyle(td).backgroundColor,
                 fg: getComputedStyle(td).color}))"""
        )
        page_bg = _rgb(root.evaluate(
            """r => { const probe = document.createElement('div'); probe.style.background = 'var(--md-default-bg-color)';
                     r.append(probe); const colour = getComputedStyle(probe).backgroundColor; probe.remove(); return colour; }"""))
        by_weight = sorted({(c["w"], contrast(_rgb(c["bg"]), page_bg)) for c in cells})
        weights = [w for w, _ in by_weight]
        against_page = [c for _, c in by_weight]
        assert weights[0] < 0.05 and weights[-1] > 0.8
        assert all(b >= a - 1e-6 for a, b in zip(against_page, against_page[1:])), by_weight
        assert against_page[-1] > against_page[0] + 0.5
        worst = min(contrast(_rgb(c["fg"]), _rgb(c["bg"])) for c in cells)
        assert worst >= 4.5, f"a weight's number is {worst:.2f}:1 on its cell"


# ---- fitting the box ----

RESULT_BOXES_JS = """r => [...r.querySelectorAll('[data-role="results"] .qkv-pg-block')].map(b => {
  const box = b.querySelector('.qkv-pg-scroll'), cell = b.querySelector('tbody td');
  return {name: b.dataset.block, over: box ? box.scrollWidth - box.clientWidth : 0,
          font: cell ? parseFloat(getComputedStyle(cell).fontSize) : null};
})"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_12_token_preset_fits_its_boxes_at_1280px(tabs, server, lang: str, scheme: str) -> None:
    with tabs.open(server, viewport=DESKTOP, color_scheme=scheme) as opened:
        root = open_page(opened.page, url_of(server, lang))
        root.locator('select[data-role="preset"]').select_option("it-animal")
        blocks = root.evaluate(RESULT_BOXES_JS)
        square = [block for block in blocks if block["name"] in ("scores", "scaled", "weights")]
        assert len(square) == 3 and len(displayed(root)["weights"]) == 12, blocks
        over = [block for block in blocks if block["over"] > 0]
        assert not over, f"at 1280 px ({lang}) these matrices are wider than their boxes (px): {over}"
        small = [block for block in blocks if block["font"] is not None and block["font"] < 12]
        assert not small, f"numbers set under 12 px to fit: {small}"
        assert not opened.foreign, f"requests to other hosts: {opened.foreign}"


LONG_NAMES = {"zh": "多头注意力里第三个头看见的那个词", "en": "CROSS-ATTENTIONS"}  # 16 characters each, the most a name holds


# At 375 px the article's two tokens; at 1280 px the twelve of a preset, which fit there (above).
@pytest.mark.parametrize(("width", "preset"), [(375, "article"), (1280, "it-animal")])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_long_token_name_keeps_the_columns_in_their_box(tabs, server, lang: str, width: int, preset: str) -> None:
    name = LONG_NAMES[lang]
    assert len(name) == 16
    with tabs.open(server, viewport={"width": width, "height": 800}) as opened:
        root = open_page(opened.page, url_of(server, lang))
        root.locator('select[data-role="preset"]').select_option(preset)
        token = root.locator('input[data-role="token"][data-row="0"]')
        assert token.get_attribute("maxlength") == "16"
        token.fill(name)
        expect(root.locator('table[data-matrix="weights"] tbody th').first).to_have_text(name)
        over = [block for block in root.evaluate(RESULT_BOXES_JS) if block["over"] > 0]
        assert not over, f"with a 16-character name at {width} px ({lang}) these matrices are wider than their boxes (px): {over}"
        labels = root.evaluate("(r, name) => [...r.querySelectorAll('table.qkv-pg-result th')].filter(th => th.textContent === name)"
                               ".map(th => th.querySelector('[title]')?.title)", name)
        assert labels and all(label == name for label in labels), f"a cut name does not carry the whole name: {labels}"
        assert opened.page.evaluate("document.scrollingElement.scrollWidth") <= width
        assert not opened.foreign, f"requests to other hosts: {opened.foreign}"


# ---- the radios and the checkbox ----


@pytest.mark.parametrize("scheme", ["dark", "light"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_unchecked_radios_and_the_checkbox_stand_out_from_the_page(tabs, server, lang: str, scheme: str) -> None:
    # WCAG 1.4.11: what shows an unchecked control (its ring) has 3:1 against what is beside it, the
    # page outside and the control's own inside, read from the pixels drawn on an ordinary screen (one
    # device pixel per CSS pixel). Chromium's own radio on slate is a grey ring around a grey fill, its
    # brightest pixel 2.8:1 on that fill.
    from io import BytesIO

    from PIL import Image

    with tabs.open(server, viewport=DESKTOP, color_scheme=scheme) as opened:
        root = open_page(opened.page, url_of(server, lang))
        page_bg = _rgb(root.evaluate("r => getComputedStyle(document.body).backgroundColor"))
        for what in ('input[data-role="scaling"][value="none"]', 'input[data-role="scaling"][value="d_k"]', 'input[data-role="causal"]'):
            control = root.locator(what)
            assert not control.is_checked()
            image = Image.open(BytesIO(control.screenshot())).convert("RGB")
            pixels = [tuple(v / 255 for v in pixel) for pixel in image.get_flattened_data()]
            ring = max(pixels, key=lambda pixel: contrast(pixel, page_bg))
            inside = image.getpixel((image.width // 2, image.height // 2))
            inside = tuple(v / 255 for v in inside)
            against_page, against_inside = contrast(ring, page_bg), contrast(ring, inside)
            assert against_page >= 3 and (against_inside >= 3 or contrast(inside, page_bg) < 1.05), (
                f"{what} ({lang}, {scheme}): its ring is {against_page:.2f}:1 on the page and {against_inside:.2f}:1 on its own inside")
        assert not opened.foreign, f"requests to other hosts: {opened.foreign}"
