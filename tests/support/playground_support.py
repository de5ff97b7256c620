"""What the playground's browser tests share: its address and URL state, the matrices qkv says it
must show, and how to read what it shows."""

from __future__ import annotations

import re
from urllib.parse import quote

import numpy as np
from browser_support import SiteServer

from qkv import attention_scores, causal_mask, project, scaled_dot_product_attention, self_attention
from qkv.analysis import scaling_factor
from qkv.examples import worked_example
from qkv_site.values.claims import TooCloseToCall
from qkv_site.values.formatting import number

RESULTS = ("q", "k", "v", "scores", "scaled", "weights", "output")
ROOT_SELECTOR = ".qkv-playground[data-qkv-ready]"


def url_of(server: SiteServer, lang: str, page_name: str = "playground", state: str = "") -> str:
    path = f"/{page_name}/" if lang == "zh" else f"/{lang}/{page_name}/"
    return server.url(path) + (f"#{state}" if state else "")


def open_page(tab, url: str):
    tab.goto("about:blank")  # a new document each time, not only a new hash
    tab.goto(url)
    tab.wait_for_selector(f"{ROOT_SELECTOR} [data-block='weights']")
    return tab.locator(ROOT_SELECTOR).first


def cell_text(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def state_hash(tokens, x, w_q, w_k, w_v, scaling="sqrt_d_k", causal=False, preset="article") -> str:
    """The playground's URL state: #p=…&t=…&x=…&q=…&k=…&v=…&s=…&m=… (cells by ",", rows by ";")."""

    def table(m) -> str:
        return ";".join(",".join(quote(cell_text(v), safe="") for v in row) for row in np.asarray(m))

    tokens = ",".join(quote(t, safe="") for t in tokens)
    return f"p={preset}&t={tokens}&x={table(x)}&q={table(w_q)}&k={table(w_k)}&v={table(w_v)}&s={scaling}&m={int(causal)}"


def expected(x, w_q, w_k, w_v, scaling="sqrt_d_k", causal=False) -> dict[str, np.ndarray]:
    """Every matrix the playground shows, computed by qkv."""
    x, w_q, w_k, w_v = (np.asarray(m, dtype=float) for m in (x, w_q, w_k, w_v))
    q, k, v = project(x, w_q), project(x, w_k), project(x, w_v)
    scale = scaling_factor(scaling, w_q.shape[1])
    mask = causal_mask(len(x)) if causal else None
    scaled = attention_scores(q, k, scale=scale)
    if mask is not None:
        scaled = np.where(mask, scaled, -np.inf)  # shown as −∞
    output, weights = scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
    if scaling == "sqrt_d_k":  # the article's default: the one-call self_attention agrees
        output_sa, weights_sa = self_attention(x, w_q, w_k, w_v, mask=mask)
        np.testing.assert_allclose(weights, weights_sa)
        np.testing.assert_allclose(output, output_sa)
    return {"q": q, "k": k, "v": v, "scores": attention_scores(q, k, scale=1.0), "scaled": scaled, "weights": weights, "output": output}


def displayed(root) -> dict[str, list[list[str]]]:
    """The text of every result matrix on show, by name (q, k, v, scores, scaled, weights, output)."""
    return root.evaluate(
        """root => Object.fromEntries([...root.querySelectorAll('table[data-matrix]')].map(t => [t.dataset.matrix,
             [...t.tBodies[0].rows].map(r => [...r.cells].filter(c => c.tagName === 'TD').map(c => c.textContent))]))"""
    )


def shows(text: str, value: float) -> bool:
    """`text` is `value` as the site writes it (qkv_site.values.formatting.number).

    JavaScript and numpy may add up in a different order; a value within 1e-9 of a rounding
    boundary may then round the other way, which is still right to the displayed precision.
    """
    if np.isneginf(value):
        return text == "−∞"
    if text == "<0.01":  # a weight too small for two decimals, but not a masked 0
        return 0 < value < 0.005 + 1e-9
    try:
        if text == number(value):
            return True
    except TooCloseToCall:  # the site would refuse to print it: a random input on a rounding boundary
        pass
    return bool(re.fullmatch(r"-?\d+(\.\d\d)?", text)) and abs(float(text) - value) <= 0.005 + 1e-9


def assert_matches(root, want: dict[str, np.ndarray], names=RESULTS) -> None:
    shown = displayed(root)
    for name in names:
        assert name in shown, f"{name} is not shown (shown: {sorted(shown)})"
        rows = shown[name]
        assert (len(rows), len(rows[0])) == want[name].shape, f"{name}: shape {len(rows)}×{len(rows[0])}, qkv says {want[name].shape}"
        wrong = [(i, j, rows[i][j], float(v)) for (i, j), v in np.ndenumerate(want[name]) if not shows(rows[i][j], v)]
        assert not wrong, f"{name}: cells (row, col, shown, qkv) differ: {wrong[:5]}"
    text = root.inner_text()
    for word in ("NaN", "Infinity", "null", "undefined"):
        assert word not in text, f"{word} is shown in the playground"


def cell(root, matrix: str, i: int, j: int):
    return root.locator(f'input[data-matrix="{matrix}"][data-row="{i}"][data-col="{j}"]')


def article_inputs() -> dict[str, np.ndarray]:
    ex = worked_example()
    return {"x": ex.x, "w_q": ex.w_q, "w_k": ex.w_k, "w_v": ex.w_v}
