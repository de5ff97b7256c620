"""The attention playground in a real browser: every number it shows is what qkv computes.

The site is built once (the session fixture ``site``), served on 127.0.0.1 and driven with
Playwright through the system's Chromium. Inputs reach the page through the shareable URL or by
typing into the cells; the expected matrices come from qkv in this process.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest
from browser_support import DESKTOP, PHONE
from playground_support import (
    ROOT_SELECTOR,
    article_inputs,
    assert_matches,
    cell,
    displayed,
    expected,
    open_page,
    state_hash,
    url_of,
)
from site_pages import built_page

from qkv.examples import it_animal_sentence, worked_example
from qkv_site.playground_presets import PRESETS_ID, presets
from qkv_site.values.formatting import factor, number

SCALINGS = ("none", "d_k", "sqrt_d_k")
MESSAGES = {  # the short message next to a matrix, per language and kind of mistake
    "zh": {"empty": "空着", "nan": "不是数字", "big": "绝对值不能超过 1000"},
    "en": {"empty": "empty", "nan": "not a number", "big": "between -1000 and 1000"},
}


# ---- the presets, as data ----


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("page_name", ["playground", "worked-example"])
def test_the_embedded_presets_are_what_qkv_site_playground_produces(site: Path, lang: str, page_name: str) -> None:
    soup = built_page(site, f"{page_name}.md", lang)
    script = soup.find("script", id=PRESETS_ID)
    assert script is not None and script.get("type") == "application/json"
    assert json.loads(script.string) == json.loads(json.dumps(presets()))
    assert soup.select_one("article .qkv-playground") is not None


# ---- the numbers ----


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_article_example_shows_what_qkv_computes(page, server, lang: str) -> None:
    root = open_page(page, url_of(server, lang))
    assert_matches(root, expected(**article_inputs()))
    assert displayed(root)["weights"] == [["0.64", "0.36"], ["0.36", "0.64"]]


def random_case(rng: np.random.Generator, case: int) -> dict[str, object]:
    n, d_model, d_k, d_v = int(rng.integers(2, 7)), int(rng.integers(1, 9)), int(rng.integers(1, 9)), int(rng.integers(1, 9))

    def matrix(rows: int, cols: int) -> np.ndarray:
        if case % 2:  # integers: the results include bare integers
            return rng.integers(-3, 4, size=(rows, cols)).astype(float)
        return np.round(rng.uniform(-2, 2, size=(rows, cols)), 1)

    words = ["猫", "坐在", "a,b", "it", "垫子", "x&y=1"]
    return {
        "tokens": [words[(case + i) % len(words)] + str(i) for i in range(n)],
        "x": matrix(n, d_model), "w_q": matrix(d_model, d_k), "w_k": matrix(d_model, d_k), "w_v": matrix(d_model, d_v),
        "scaling": SCALINGS[case % 3], "causal": case >= 3,
    }


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_random_inputs_from_the_url_show_what_qkv_computes(page, server, lang: str) -> None:
    rng = np.random.default_rng(20240601 if lang == "zh" else 7)
    for case in range(6):
        inputs = random_case(rng, case)
        root = open_page(page, url_of(server, lang, state=state_hash(**inputs)))
        want = expected(inputs["x"], inputs["w_q"], inputs["w_k"], inputs["w_v"], inputs["scaling"], inputs["causal"])
        assert_matches(root, want)
        labels = root.locator('input[data-role="token"]').evaluate_all("nodes => nodes.map(n => n.value)")
        assert labels == inputs["tokens"]


def test_editing_cells_updates_every_result(page, server) -> None:
    root = open_page(page, url_of(server, "zh"))
    inputs = article_inputs()
    x, w_q = inputs["x"].astype(float), inputs["w_q"].astype(float)
    cell(root, "x", 0, 1).fill("2")
    x[0, 1] = 2
    assert_matches(root, expected(x, w_q, inputs["w_k"], inputs["w_v"]))
    # typed key by key: the half-typed "-" is marked, then "-1.5" counts
    cell(root, "w_q", 2, 1).fill("")
    cell(root, "w_q", 2, 1).press_sequentially("-1.5")
    w_q[2, 1] = -1.5
    assert_matches(root, expected(x, w_q, inputs["w_k"], inputs["w_v"]))
    assert cell(root, "w_q", 2, 1).get_attribute("aria-invalid") is None


def test_scaling_and_the_causal_mask_change_the_weights_as_qkv_predicts(page, server) -> None:
    root = open_page(page, url_of(server, "en"))
    inputs = article_inputs()
    peaks = {}
    for causal in (False, True):
        root.locator('input[data-role="causal"]').set_checked(causal)
        for scaling in SCALINGS:
            root.locator(f'input[data-role="scaling"][value="{scaling}"]').check()
            want = expected(**inputs, scaling=scaling, causal=causal)
            assert_matches(root, want)
            peaks[scaling, causal] = float(want["weights"][1].max())
            if causal:
                assert displayed(root)["scaled"][0][1] == "−∞"
                assert displayed(root)["weights"][0] == ["1.00", "0"]  # one format per matrix; the 0 is masked
    # the larger the factor, the sharper the weights: none > ÷√d_k > ÷d_k
    assert peaks["none", False] > peaks["sqrt_d_k", False] > peaks["d_k", False]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_invalid_input_is_marked_and_never_reaches_the_results(page, server, lang: str) -> None:
    root = open_page(page, url_of(server, lang))
    target = cell(root, "x", 0, 0)
    for text, kind in [("", "empty"), ("abc", "nan"), ("-", "nan"), ("1e6", "big"), ("Infinity", "nan"), ("NaN", "nan"), ("1e400", "big")]:
        target.fill(text)
        assert target.get_attribute("aria-invalid") == "true", text
        errors = root.locator('[data-errors="x"]').inner_text()
        assert MESSAGES[lang][kind] in errors, (text, errors)
        shown = displayed(root)
        assert not shown, f"{text!r}: results depending on X are still shown: {sorted(shown)}"
        content = root.inner_text()  # the reader's own typing sits in input values, not in this text
        for word in ("NaN", "Infinity", "null", "undefined"):
            assert word not in content, f"{text!r}: {word} is shown"
    target.fill("1")
    assert target.get_attribute("aria-invalid") is None
    assert root.locator('[data-errors="x"]').inner_text().strip() == ""
    assert_matches(root, expected(**article_inputs()))
    # an invalid W_V holds back only V and the output
    cell(root, "w_v", 0, 0).fill("?")
    assert set(displayed(root)) == {"q", "k", "scores", "scaled", "weights"}


def test_the_shared_url_restores_the_state(page, server, browser) -> None:
    root = open_page(page, url_of(server, "zh"))
    root.locator('select[data-role="preset"]').select_option("no-projection")
    root.locator('select[data-role="d_v"]').select_option("2")
    cell(root, "w_v", 0, 0).fill("2.5")
    cell(root, "x", 1, 2).fill("-1")
    root.locator('input[data-role="token"][data-row="0"]').fill("我")
    root.locator('button[data-role="add"]').click()
    cell(root, "x", 2, 0).fill("3")
    root.locator('input[data-role="scaling"][value="d_k"]').check()
    root.locator('input[data-role="causal"]').check()
    root.locator('button[data-role="share"]').click()
    from playwright.sync_api import expect

    expect(root.locator('[data-role="share-status"]')).to_have_text("链接已复制")  # the clipboard answers asynchronously
    # The link is the address at the click. Material's navigation.tracking rewrites the address's hash to
    # the section in view as the page scrolls, so the hash may differ by now; the query, the state, may not.
    shared = page.evaluate("navigator.clipboard.readText()")
    assert urlsplit(shared).query == urlsplit(page.evaluate("location.href")).query and "x=" in urlsplit(shared).query
    before = displayed(root)
    values = root.locator("input[type=text]").evaluate_all("nodes => nodes.map(n => n.value)")

    other = browser.new_page()
    try:
        restored = open_page(other, shared)
        assert displayed(restored) == before
        assert restored.locator("input[type=text]").evaluate_all("nodes => nodes.map(n => n.value)") == values
        assert restored.locator('select[data-role="preset"]').input_value() == "no-projection"
        assert restored.locator('select[data-role="d_v"]').input_value() == "2"
        assert restored.locator('input[data-role="scaling"][value="d_k"]').is_checked()
        assert restored.locator('input[data-role="causal"]').is_checked()
    finally:
        other.close()
    # and the numbers are qkv's: the state is X with a third token, identity W_Q and W_K, edited W_V
    x = np.array([[1, 0, 1, 0], [0, 1, -1, 1], [3, 0, 0, 0]], dtype=float)
    w_v = np.eye(4)[:, :2]
    w_v[0, 0] = 2.5
    assert_matches(root, expected(x, np.eye(4), np.eye(4), w_v, scaling="d_k", causal=True))
    # "reset" goes back to the preset, and a malformed URL falls back to the article's example
    # (and says so: tests/browser/test_browser_playground_polish.py)
    root.locator('button[data-role="reset"]').click()
    assert_matches(root, expected(worked_example().x, np.eye(4), np.eye(4), np.eye(4)))
    broken = open_page(page, url_of(server, "zh", state="p=article&x=1,2;3&q=%E0%A4%A&k=&v="))
    assert_matches(broken, expected(**article_inputs()))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_hovering_a_score_writes_out_its_dot_product(page, server, lang: str) -> None:
    root = open_page(page, url_of(server, lang))
    ex = worked_example()
    explain = root.locator('[data-role="explain"]')

    def written_out(i: int, j: int) -> str:
        terms = " + ".join(f"{factor(a)}×{factor(b)}" for a, b in zip(ex.q[i], ex.k[j]))
        return f"{terms} = {number(ex.scores[i, j])}"

    score = root.locator('table[data-matrix="scores"] td[data-row="0"][data-col="1"]')
    score.hover()
    assert written_out(0, 1) == "2×0 + 0×1 + 1×1 = 1"
    assert explain.inner_text().endswith(written_out(0, 1))
    assert ("Q 的第 1 行（I）· K 的第 2 行（love）" if lang == "zh" else "Q row 1 (I) · K row 2 (love)") in explain.inner_text()
    lit = root.evaluate("r => [...r.querySelectorAll('tr.qkv-pg-hl')].map(tr => tr.closest('table').dataset.matrix + tr.rowIndex)")
    assert sorted(lit) == ["k2", "q1"]  # rowIndex counts the header row
    # the keyboard gets the same: focus a cell, move with the arrow keys
    page.mouse.move(0, 0)
    root.locator('table[data-matrix="scores"] td[data-row="1"][data-col="0"]').focus()
    assert explain.inner_text().endswith(written_out(1, 0))
    page.keyboard.press("ArrowRight")
    assert explain.inner_text().endswith(written_out(1, 1))
    assert page.evaluate("document.activeElement.dataset.row + document.activeElement.dataset.col") == "11"
    # negative factors are written in parentheses, as on the worked example page
    cell(root, "x", 0, 0).fill("-1")
    x = ex.x.astype(float)
    x[0, 0] = -1
    ex = worked_example(x=x)
    root.locator('table[data-matrix="scores"] td[data-row="0"][data-col="0"]').hover()
    assert "(-1)×" in written_out(0, 0)
    assert explain.inner_text().endswith(written_out(0, 0))


def test_arrow_keys_move_between_cells_and_every_control_has_a_name(page, server) -> None:
    root = open_page(page, url_of(server, "en"))
    cell(root, "x", 0, 0).focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("End")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "X row 2 column 2"
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "X row 1 column 2"
    assert cell(root, "w_k", 3, 2).get_attribute("aria-label") == "W_K row 4 column 3"
    unnamed = root.evaluate(
        """r => [...r.querySelectorAll('input, select, button')].filter(n =>
             !(n.getAttribute('aria-label') || n.closest('label') || n.textContent.trim())).map(n => n.outerHTML)"""
    )
    assert not unnamed
    zh = open_page(page, url_of(server, "zh"))
    assert cell(zh, "x", 0, 1).get_attribute("aria-label") == "X 第 1 行第 2 列"


def test_every_preset_shows_what_qkv_computes(page, server) -> None:
    root = open_page(page, url_of(server, "en"))
    for name, preset in presets()["presets"].items():
        root.locator('select[data-role="preset"]').select_option(name)
        assert_matches(root, expected(preset["x"], preset["w_q"], preset["w_k"], preset["w_v"], preset["scaling"], preset["causal"]))
    # "it" → "animal" keeps its 12 tokens: the weights the site quotes, and no more tokens by hand
    animal = it_animal_sentence()
    row = displayed(root)["weights"][animal.tokens.index("it")]
    assert row[animal.tokens.index("animal")] == number(animal.weights_of("it")["animal"])
    assert root.locator('button[data-role="add"]').is_disabled()
    assert "12" in root.locator(".qkv-pg-note").inner_text()
    # Q = K = V = X: the scores are symmetric
    root.locator('select[data-role="preset"]').select_option("no-projection")
    scores = displayed(root)["scores"]
    assert scores == [list(r) for r in zip(*scores)]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_compact_playground_on_the_worked_example(page, server, lang: str) -> None:
    # it waits behind its button: nothing of the playground is fetched until the reader opens it
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto("about:blank")
    page.goto(url_of(server, lang, "worked-example"))
    root = page.locator(".qkv-playground[data-compact]")  # (not yet [data-qkv-ready]: no playground drawn)
    opener = root.locator("button.qkv-pg-open")
    opener.wait_for(state="visible")
    assert root.get_attribute("data-compact") is not None and root.get_attribute("data-qkv-waiting") is not None
    assert opener.inner_text() == {"zh": "打开小实验台", "en": "Open the small playground"}[lang]
    page.evaluate("() => document.fonts.ready")
    assert not [url for url in requested if "playground.js" in url or "playground.css" in url or "attention.js" in url], requested
    opener.focus()
    page.keyboard.press("Enter")  # the keyboard opens it, and goes on in its first cell
    page.wait_for_selector(f"{ROOT_SELECTOR} [data-block='weights']")
    page.wait_for_function("() => document.activeElement?.matches('input[data-matrix=\"x\"]')")
    assert root.get_attribute("data-qkv-waiting") is None and root.get_attribute("aria-busy") is None
    assert set(root.locator("input[data-matrix]").evaluate_all("ns => [...new Set(ns.map(n => n.dataset.matrix))]")) == {"x", "w_q"}
    assert set(displayed(root)) == {"weights", "output"}
    inputs = article_inputs()
    assert_matches(root, expected(**inputs), names=("weights", "output"))
    cell(root, "w_q", 0, 0).fill("3")
    w_q = inputs["w_q"].astype(float)
    w_q[0, 0] = 3
    want = expected(inputs["x"], w_q, inputs["w_k"], inputs["w_v"])
    assert_matches(root, want, names=("weights", "output"))
    # The article page's URL is left alone: no state in its query or hash. (Material's navigation.tracking
    # may set the hash to the heading in view, as the edit scrolls the page: that is the page's own.)
    search, hash_ = page.evaluate("[location.search, location.hash]")
    heading = f"h2[id='{hash_[1:]}'], h3[id='{hash_[1:]}']"
    assert search == "" and (hash_ == "" or ("=" not in hash_ and page.locator(heading).count() == 1)), (search, hash_)
    # the link opens the full playground with these numbers
    root.locator('a[data-role="full"]').click()
    page.wait_for_selector(f"{ROOT_SELECTOR} table[data-matrix='q']")
    assert page.evaluate("location.pathname").endswith("/playground/")
    assert_matches(page.locator(ROOT_SELECTOR), want)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_playground_fits_a_phone(tabs, server, lang: str) -> None:
    with tabs.open(server, viewport=PHONE) as opened:
        tab = opened.page
        root = open_page(tab, url_of(server, lang))
        root.locator('select[data-role="preset"]').select_option("it-animal")
        assert tab.evaluate("document.scrollingElement.scrollWidth") <= 375, "the page scrolls sideways at 375 px"
        weights = root.locator('[data-block="weights"] .qkv-pg-scroll')
        assert weights.evaluate("n => n.scrollWidth > n.clientWidth"), "the 12×12 weights should scroll inside their box"


# Each language in one scheme, so that both languages and both schemes are looked at. The playground's
# colours are the same in both languages (one stylesheet, the same numbers), so its contrast depends on
# the scheme only; its names and the sizes of its targets follow the words, the same in both schemes.
@pytest.mark.parametrize(("lang", "scheme"), [("zh", "light"), ("en", "dark")])
def test_axe_finds_nothing_serious_in_any_state(tabs, server, lang: str, scheme: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    with tabs.open(server, viewport=DESKTOP, color_scheme=scheme) as opened:
        tab = opened.page
        root = open_page(tab, url_of(server, lang))
        found = []

        def mask_unscale_break_and_point() -> None:  # each change keeps what the ones before it show
            root.locator('input[data-role="causal"]').check()
            root.locator('input[data-role="scaling"][value="none"]').check()
            cell(root, "w_v", 0, 0).fill("abc")  # marked invalid; V and the output are held back until it is fixed
            root.locator('table[data-matrix="scores"] td[data-row="7"][data-col="1"]').hover()

        # Three states, each looked at by axe: the article's example; every weight from 0 to 1 on the
        # heatmap; and a masked matrix without scaling (weights at 0 and 1), an invalid cell and a
        # highlighted row, all at once (axe takes seconds on the 12-token matrices: one run for the four).
        steps = [
            ("the article's example", lambda: None),
            ("the it-animal preset", lambda: root.locator('select[data-role="preset"]').select_option("it-animal")),
            ("causal, no scaling, an invalid cell, a row pointed at", mask_unscale_break_and_point),
        ]
        for state, step in steps:
            step()
            results = Axe().run(tab, context=".qkv-playground")
            found += [
                f"{state}: {v['id']} ({v['impact']}): {v['help']} — " + "; ".join(" ".join(map(str, n["target"])) for n in v["nodes"][:4])
                for v in results.response["violations"]
                if v["impact"] in ("serious", "critical")
            ]
        state = root.evaluate("""(root) => [root.querySelector('input[data-role="causal"]').checked,
                                             root.querySelector('input[data-role="scaling"][value="none"]').checked,
                                             root.querySelectorAll('[aria-invalid="true"]').length]""")
        assert state[:2] == [True, True] and state[2] >= 1, f"the last state is not all of its changes at once: {state}"
        assert not found, "\n".join(sorted(set(found)))
