// The attention playground: editable X, W_Q, W_K, W_V and every intermediate of self-attention,
// recomputed on each keystroke. Any element with class "qkv-playground" becomes one; with
// data-compact it shows only X, W_Q, the weights and the output. The presets come from the page's
// <script type="application/json" id="qkv-playground-presets"> (built by qkv_site.playground_presets).
import { attention, decimalsOf, dotProductText, formatFixed, formatWeight, parseCell } from "./attention.js";

const LIMIT = 1000; // |cell| above this is refused: the numbers would be unreadable long before they overflow
const SCALINGS = ["none", "d_k", "sqrt_d_k"];
const INPUTS = ["x", "w_q", "w_k", "w_v"];
const STATUS_MS = 4000; // how long "Link copied" stays
// What parseCell reads (ASCII, Unicode or full-width minus and digits); the input's pattern, for the
// browser's own validity. The keyboard is inputmode="text": iOS's decimal pad has no minus key.
const SIGN = "[+\\-\u2212\u2013\uFF0B\uFF0D]", DIGIT = "[0-9\uFF10-\uFF19]", POINT = "[.\uFF0E]";
const CELL_PATTERN = `\\s*${SIGN}?(${DIGIT}+${POINT}?${DIGIT}*|${POINT}${DIGIT}+)([eE]${SIGN}?${DIGIT}+)?\\s*`;

// Symbols as the page's formulas set them, in plain HTML: italic d, real subscripts, √ with a bar.
const D = (sub) => `<i>d</i><sub><i>${sub}</i></sub>`;
const ROOT = (inner) => `√<span class="qkv-pg-radicand">${inner}</span>`;

const STRINGS = {
  zh: {
    region: "注意力实验台", preset: "预设", reset: "重置", share: "复制链接", copied: "链接已复制",
    copyFailed: "请从地址栏复制链接", addToken: "＋ 添加一个词", removeToken: (t) => `删除 “${t}”`,
    token: (i) => `词 ${i}`, dims: "维度", scaling: "缩放", causal: "因果掩码（每个词只看它和它前面的词）",
    none: "不缩放", d_k: `÷ ${D("k")}`, sqrt_d_k: `÷ ${ROOT(D("k"))}`, inputs: "输入（可以编辑）", results: "结果",
    presets: {
      article: "原文的例子 “I love”",
      "no-projection": "Q = K = V = X（不做投影）",
      "it-animal": "“it” → “animal”（12 个词，超过手动上限 6）",
    },
    cell: (m, i, j) => `${m} 第 ${i} 行第 ${j} 列`,
    error: (i, j, e) => `第 ${i} 行第 ${j} 列：${{ empty: "空着", nan: "不是数字", big: "绝对值不能超过 1000" }[e]}`,
    waiting: "先修正上面标出的输入", masked: "被掩码遮住",
    hint: "把鼠标移到 QKᵀ 的格子上（或用 Tab 键选中它），看它是哪两行的点积。",
    dot: (i, j, a, b, sum) => `Q 的第 ${i} 行（${a}）· K 的第 ${j} 行（${b}）= ${sum}`,
    rounded: "（显示的数字四舍五入到两位小数，所以乘出来只是约等于）",
    badLink: "这个链接里的数字读不出来（可能被截断或改动过），下面显示的是原文的例子。",
    tooMany: (n, max) => `这个预设有 ${n} 个词，超过手动添加的上限 ${max}：可以删词，但不能再加。`,
    full: "在完整的注意力实验台里打开这些数字 →",
    weights: "softmax：注意力权重", output: "输出 = 权重 · V",
  },
  en: {
    region: "Attention playground", preset: "Preset", reset: "Reset", share: "Copy link", copied: "Link copied",
    copyFailed: "Copy the link from the address bar", addToken: "+ Add a token", removeToken: (t) => `Remove “${t}”`,
    token: (i) => `Token ${i}`, dims: "Dimensions", scaling: "Scaling", causal: "Causal mask (each token sees only itself and earlier tokens)",
    none: "none", d_k: `÷ ${D("k")}`, sqrt_d_k: `÷ ${ROOT(D("k"))}`, inputs: "Inputs (editable)", results: "Results",
    presets: {
      article: "The article's example “I love”",
      "no-projection": "Q = K = V = X (no projections)",
      "it-animal": "“it” → “animal” (12 tokens, above the manual limit of 6)",
    },
    cell: (m, i, j) => `${m} row ${i} column ${j}`,
    error: (i, j, e) => `Row ${i}, column ${j}: ${{ empty: "empty", nan: "not a number", big: "keep it between -1000 and 1000" }[e]}`,
    waiting: "Fix the marked inputs above first", masked: "masked",
    hint: "Hover over a cell of QKᵀ (or Tab to it) to see which two rows it is the dot product of.",
    dot: (i, j, a, b, sum) => `Q row ${i} (${a}) · K row ${j} (${b}) = ${sum}`,
    rounded: " (the numbers shown are rounded to two decimals, so the products only approximately add up)",
    badLink: "The numbers in this link could not be read (it may be cut short or altered); showing the article's example instead.",
    tooMany: (n, max) => `This preset has ${n} tokens, more than the ${max} you can add by hand: you can remove tokens but not add any.`,
    full: "Open these numbers in the full attention playground →",
    weights: "softmax: attention weights", output: "Output = weights · V",
  },
};

// ---- state: the reader's text in every cell, so that a half-typed "-" survives a re-render ----

const text = (matrix) => matrix.map((row) => row.map(String));
const resize = (m, rows, cols) => Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => m[i]?.[j] ?? "0"));

function fromPreset(name, preset) {
  return {
    preset: name, tokens: [...preset.tokens], x: text(preset.x), w_q: text(preset.w_q), w_k: text(preset.w_k),
    w_v: text(preset.w_v), scaling: preset.scaling, causal: preset.causal,
  };
}

const dims = (s) => ({ n: s.x.length, dModel: s.x[0].length, dK: s.w_q[0].length, dV: s.w_v[0].length });

// ---- the shareable URL: ?p=article&t=I,love&x=1,0,1,0;0,1,0,1&wq=…&wk=…&wv=…&s=sqrt_d_k&m=0 ----
// The state lives in the query, not the hash: Material's navigation.tracking rewrites the hash to
// the section in view (#try-it) whenever the reader scrolls, and a reload or a language switch
// would then lose the edits. The weights are wq, wk and wv there: Material reads ?q= as a search
// to open (and ?h= as words to highlight). Links made before, with the state in the hash and the
// weights as q, k and v, are still read (and moved into the query at once).

const KEYS = { x: "x", w_q: "wq", w_k: "wk", w_v: "wv" };
const OLD_KEYS = { wq: "q", wk: "k", wv: "v" }; // the weights' keys in links made before

function encodeState(s) {
  const table = (m) => m.map((row) => row.map(encodeURIComponent).join(",")).join(";");
  const parts = [`p=${encodeURIComponent(s.preset)}`, `t=${s.tokens.map(encodeURIComponent).join(",")}`];
  for (const name of INPUTS) parts.push(`${KEYS[name]}=${table(s[name])}`);
  parts.push(`s=${s.scaling}`, `m=${s.causal ? 1 : 0}`);
  return parts.join("&");
}

/** true when a query or hash is meant to be a shared state (not, say, a heading's anchor). */
const isStateHash = (hash) => /(^[#?]?|&)(p|t|x|wq|wk|wv|q|k|v|s|m)=/.test(hash);

/** Where the address keeps a state: a hash that holds one (an older link), else the query. */
const stateInAddress = () => (isStateHash(location.hash) ? location.hash : location.search);

/** The address with `state` in its query, and without a state in its hash (a section's anchor stays). */
function addressWith(state) {
  const url = new URL(location.href);
  url.search = `?${state}`;
  if (isStateHash(url.hash)) url.hash = "";
  return url.href;
}

function decodeState(hash, limits, presets) {
  const fields = Object.fromEntries(hash.replace(/^[#?]/, "").split("&").map((p) => p.split(/=(.*)/s, 2)));
  for (const [key, old] of Object.entries(OLD_KEYS)) fields[key] ??= fields[old];
  if (!fields.x || !fields.wq || !fields.wk || !fields.wv) return null;
  try {
    const list = (t) => t.split(",").map(decodeURIComponent);
    const table = (t) => t.split(";").map(list);
    const s = {
      preset: presets[decodeURIComponent(fields.p ?? "")] ? decodeURIComponent(fields.p) : "article",
      tokens: list(fields.t ?? ""), x: table(fields.x), w_q: table(fields.wq), w_k: table(fields.wk), w_v: table(fields.wv),
      scaling: SCALINGS.includes(fields.s) ? fields.s : "sqrt_d_k", causal: fields.m === "1",
    };
    const { n, dModel, dK, dV } = dims(s);
    const rect = (m, rows, cols) => m.length === rows && m.every((row) => row.length === cols);
    const fits = (d) => d >= 1 && d <= limits.max_dim;
    const ok = n >= limits.min_tokens && n <= limits.max_preset_tokens && fits(dModel) && fits(dK) && fits(dV) &&
      rect(s.x, n, dModel) && rect(s.w_q, dModel, dK) && rect(s.w_k, dModel, dK) && rect(s.w_v, dModel, dV);
    if (!ok) return null;
    if (s.tokens.length !== n) s.tokens = Array.from({ length: n }, (_, i) => `t${i + 1}`);
    return s;
  } catch {
    return null; // a malformed %-escape: ignore the hash, start from the preset
  }
}

// ---- DOM helpers ----

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value == null) continue;
    if (key === "html") node.innerHTML = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.flat().filter((c) => c != null));
  return node;
}

// Matrix names as shown (HTML) and as read aloud / in aria-labels (plain text).
const NAMES = {
  x: ["X", "X"], w_q: ["W<sub>Q</sub>", "W_Q"], w_k: ["W<sub>K</sub>", "W_K"], w_v: ["W<sub>V</sub>", "W_V"],
  q: ["Q = X · W<sub>Q</sub>", "Q"], k: ["K = X · W<sub>K</sub>", "K"], v: ["V = X · W<sub>V</sub>", "V"],
  scores: ["QK<sup>T</sup>", "QKᵀ"],
};
const COLOUR = { x: "x", w_q: "q", w_k: "k", w_v: "v", q: "q", k: "k", v: "v", scores: "qk", scaled: "qk", weights: "w", output: "v" };

// A token's name in the header of a result: at most a few characters wide, cut with "…" beyond
// (the whole name stays its text, read aloud, and its title; the X table above shows it whole), so
// that a long name (up to 16 characters) cannot push the columns out of their box.
function tokenLabel(name) {
  return el("span", { class: "qkv-pg-label", title: name }, name);
}
// A result with more columns than this (the 12 tokens of a preset) is set tighter, to fit its box at 1280 px.
const WIDE_COLUMNS = 8;

function block(name, title, shape, table, extra = []) {
  const id = `qkv-pg-${name}-${Math.random().toString(36).slice(2, 8)}`;
  return el("div", { class: `qkv-pg-block qkv-pg-${COLOUR[name]}`, "data-block": name, role: "group", "aria-labelledby": id },
    el("div", { class: "qkv-pg-title", id, html: `${title} <span class="qkv-pg-shape">${shape}</span>` }),
    el("div", { class: "qkv-pg-scroll" }, table), extra);
}

// ---- heatmap ink: the text colour with the most contrast on a cell's fill ----

// The fill is CSS's color-mix along the scheme's three-stop ramp (--qkv-heat-<scheme>-0/1/2), i.e.
// a straight line in sRGB; the same interpolation here gives its luminance (WCAG 2).
const rgb = (hex) => [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16) / 255);
const luminance = (channels) => channels.map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
  .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
const contrast = (a, b) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
const ramps = {};
const ramp = (scheme) => (ramps[scheme] ??= [0, 1, 2].map((i) =>
  rgb(getComputedStyle(document.documentElement).getPropertyValue(`--qkv-heat-${scheme}-${i}`).trim() || "#808080")));

function ink(scheme, w) {
  const [c0, c1, c2] = ramp(scheme);
  const [from, to, t] = w <= 0.5 ? [c0, c1, w * 2] : [c1, c2, w * 2 - 1];
  const fill = luminance(from.map((c, i) => c + (to[i] - c) * t));
  const best = (inks) => inks.reduce((a, b) => (contrast(luminance(rgb(b)), fill) > contrast(luminance(rgb(a)), fill) ? b : a));
  // the site's soft black or white where it reaches 4.5:1 (with a margin for 8-bit rounding),
  // else pure black or white: one of them always has at least 4.58:1
  const soft = best(["#212121", "#f5f5f7"]);
  return contrast(luminance(rgb(soft)), fill) >= 4.6 ? soft : best(["#000000", "#ffffff"]);
}

// ---- one playground ----

class Playground {
  constructor(root, data) {
    this.root = root;
    this.data = data;
    this.compact = root.hasAttribute("data-compact");
    this.t = STRINGS[document.documentElement.lang.startsWith("en") ? "en" : "zh"];
    const restored = this.compact ? null : decodeState(stateInAddress(), data.limits, data.presets);
    this.state = restored ?? fromPreset("article", data.presets.article);
    this.badLink = !this.compact && !restored && isStateHash(stateInAddress());
    if (restored && isStateHash(location.hash)) this.remember(); // an older link: into the query before a scroll rewrites the hash
    root.setAttribute("role", "region");
    root.setAttribute("aria-label", this.t.region);
    root.addEventListener("input", (e) => this.onInput(e));
    root.addEventListener("change", (e) => this.onChange(e));
    root.addEventListener("click", (e) => this.onClick(e));
    root.addEventListener("keydown", (e) => this.onKey(e));
    for (const type of ["mouseover", "focusin"]) root.addEventListener(type, (e) => this.explain(e.target.closest("td[data-dot]")));
    for (const type of ["mouseout", "focusout"]) root.addEventListener(type, (e) => e.target.closest("td[data-dot]") && this.explain(null));
    if (!this.compact) window.addEventListener("hashchange", () => this.restore());
    window.addEventListener("resize", () => this.markScrollable());
    this.build();
  }

  // A state link opened on this page (its hash changed): show it. Any other hash (a section's
  // anchor, Material's tracking) leaves the state alone.
  restore() {
    if (!isStateHash(location.hash)) return;
    const s = decodeState(location.hash, this.data.limits, this.data.presets);
    if (s && encodeState(s) !== encodeState(this.state)) { this.state = s; this.badLink = false; this.build(); }
    else if (!s) { this.badLink = true; this.build(); }
    if (s) this.remember();
  }

  // The state into the address (its query), so that a reload, a copied link or the language switch keeps it.
  remember() {
    history.replaceState(history.state, "", addressWith(encodeState(this.state)));
  }

  // Everything that changes the shape of a matrix rebuilds the inputs; typing only recomputes.
  build() {
    const { t, state: s } = this;
    const { n, dModel, dK, dV } = dims(s);
    const { max_tokens, min_tokens, max_dim } = this.data.limits;
    const select = (role, value, label) => el("label", {}, el("span", { html: `${label} ` }), el("select", { "data-role": role },
      Array.from({ length: max_dim }, (_, i) => el("option", { value: i + 1, selected: i + 1 === value }, String(i + 1)))));
    const controls = this.compact ? null : el("div", { class: "qkv-pg-controls" },
        el("div", { class: "qkv-pg-row" },
          el("label", { class: "qkv-pg-preset" }, t.preset, el("select", { "data-role": "preset" }, Object.keys(this.data.presets).map((p) =>
            el("option", { value: p, selected: p === s.preset }, t.presets[p] ?? p)))),
          el("button", { type: "button", class: "qkv-pg-button", "data-role": "reset" }, t.reset),
          el("button", { type: "button", class: "qkv-pg-button", "data-role": "share" }, t.share),
          el("span", { role: "status", "data-role": "share-status" })),
        el("div", { class: "qkv-pg-row" },
          el("fieldset", {}, el("legend", {}, t.dims), select("d_model", dModel, D("model")), select("d_k", dK, D("k")), select("d_v", dV, D("v"))),
          el("fieldset", {}, el("legend", {}, t.scaling), SCALINGS.map((k) => el("label", {},
            el("input", { type: "radio", name: `qkv-scaling-${this.uid ??= Math.random().toString(36).slice(2)}`, value: k, "data-role": "scaling", checked: k === s.scaling }), el("span", { html: ` ${t[k]}` })))),
          el("label", { class: "qkv-pg-causal" }, el("input", { type: "checkbox", "data-role": "causal", checked: s.causal }), ` ${t.causal}`)),
        n > max_tokens ? el("p", { class: "qkv-pg-note" }, t.tooMany(n, max_tokens)) : null,
        this.badLink ? el("p", { class: "qkv-pg-bad-link", role: "alert", "data-role": "bad-link" }, t.badLink) : null);

    const inputs = (this.compact ? ["x", "w_q"] : INPUTS).map((name) => {
      const rows = s[name].map((row, i) => el("tr", {},
        el("th", { scope: "row" }, name === "x" ? this.tokenHeader(i, n > min_tokens) : String(i + 1)),
        row.map((value, j) => el("td", {}, el("input", {
          type: "text", inputmode: "text", pattern: CELL_PATTERN, autocapitalize: "off", autocomplete: "off", spellcheck: "false",
          value, size: 4, style: `--qkv-chars: ${value.length}`,
          "data-matrix": name, "data-row": i, "data-col": j, "aria-label": t.cell(NAMES[name][1], i + 1, j + 1),
        })))));
      const table = el("table", { class: "qkv-pg-table" }, this.header(s[name][0].length), el("tbody", {}, rows));
      const shape = `${s[name].length} × ${s[name][0].length}`;
      return block(name, NAMES[name][0], shape, table, el("ul", { class: "qkv-pg-errors", "data-errors": name, "aria-live": "polite" }));
    });
    const addToken = this.compact ? null : el("button", { type: "button", class: "qkv-pg-button", "data-role": "add", disabled: n >= max_tokens }, t.addToken);

    const full = this.compact ? el("p", { class: "qkv-pg-full" }, el("a", { "data-role": "full", href: "" }, t.full)) : null;
    this.root.replaceChildren(...[controls,
      el("h3", { class: "qkv-pg-heading" }, t.inputs), el("div", { class: "qkv-pg-grid" }, inputs), addToken,
      el("h3", { class: "qkv-pg-heading" }, t.results), el("div", { class: "qkv-pg-grid", "data-role": "results" }), full].filter(Boolean));
    for (const name of this.compact ? ["x", "w_q"] : INPUTS) this.validate(name);
    this.update();
  }

  tokenHeader(i, removable) {
    const label = this.state.tokens[i];
    return el("span", { class: "qkv-pg-token" },
      this.compact ? label : el("input", { type: "text", value: label, maxlength: 16, size: 5, "data-role": "token", "data-row": i, "aria-label": this.t.token(i + 1) }),
      this.compact ? null : el("button", { type: "button", class: "qkv-pg-remove", "data-role": "remove", "data-row": i, disabled: !removable, "aria-label": this.t.removeToken(label), title: this.t.removeToken(label) }, "×"));
  }

  header(cols, labels = null) {
    return el("thead", {}, el("tr", {}, el("td", {}), Array.from({ length: cols }, (_, j) => el("th", { scope: "col" }, labels ? tokenLabel(labels[j]) : String(j + 1)))));
  }

  // Mark invalid cells in place and list them next to the matrix; return the numbers or null.
  validate(name) {
    const errors = [];
    const values = this.state[name].map((row, i) => row.map((cell, j) => {
      const { value, error } = parseCell(cell, LIMIT);
      const input = this.root.querySelector(`input[data-matrix="${name}"][data-row="${i}"][data-col="${j}"]`);
      if (input && error) input.setAttribute("aria-invalid", "true");
      else input?.removeAttribute("aria-invalid");
      if (error) errors.push(this.t.error(i + 1, j + 1, error));
      return value;
    }));
    const list = this.root.querySelector(`[data-errors="${name}"]`);
    if (list) list.replaceChildren(...errors.slice(0, 3).map((e) => el("li", {}, e)), ...(errors.length > 3 ? [el("li", {}, "…")] : []));
    return errors.length ? null : values;
  }

  update() {
    const { t, state: s } = this;
    const parsed = Object.fromEntries(INPUTS.map((name) => [name, this.validate(name)]));
    const r = attention({ x: parsed.x, wQ: parsed.w_q, wK: parsed.w_k, wV: parsed.w_v, scaling: s.scaling, causal: s.causal });
    const tokens = s.tokens.map((label, i) => label.trim() || `#${i + 1}`);
    const dK = s.w_q[0].length;
    const scaledTitle = { none: "QK<sup>T</sup>", d_k: `QK<sup>T</sup> ÷ ${dK}`, sqrt_d_k: `QK<sup>T</sup> ÷ ${ROOT(dK)}` }[s.scaling];
    const wanted = this.compact ? ["weights", "output"] : ["q", "k", "v", "scores", "scaled", "weights", "output"];
    const titles = { ...Object.fromEntries(Object.entries(NAMES).map(([k, v]) => [k, v[0]])), scaled: scaledTitle, weights: t.weights, output: t.output };
    // one format per matrix: all integers bare, otherwise every cell with two decimals
    const visible = (name) => r[name].map((row, i) => row.filter((_, j) => !(r.mask && !r.mask[i][j] && (name === "scaled" || name === "weights"))));
    this.decimals = Object.fromEntries(wanted.concat("scores").filter((name) => r[name]).map((name) => [name, decimalsOf(visible(name))]));
    const blocks = wanted.map((name) => {
      const m = r[name];
      const cols = m ? m[0].length : 0;
      const square = ["scores", "scaled", "weights"].includes(name);
      // Masked scores are -Infinity on purpose (shown as −∞); anything else non-finite is never shown.
      const shown = m && m.every((row, i) => row.every((v, j) => Number.isFinite(v) || (name === "scaled" && r.mask && !r.mask[i][j])));
      const body = !shown ? el("p", { class: "qkv-pg-waiting" }, t.waiting) : el("table", { class: "qkv-pg-table qkv-pg-result", "data-matrix": name, "data-wide": cols > WIDE_COLUMNS },
        this.header(cols, square ? tokens : null),
        el("tbody", {}, m.map((row, i) => el("tr", {}, el("th", { scope: "row" }, tokenLabel(tokens[i])), row.map((v, j) => this.cell(name, r, i, j, v))))));
      return block(name, titles[name], m ? `${m.length} × ${cols}` : "", body);
    });
    // The dot product under the pointer is written out on a line of its own, below QKᵀ.
    if (r.scores && !this.compact) blocks.splice(wanted.indexOf("scaled") + 1, 0, el("p", { class: "qkv-pg-explain", "aria-live": "polite", "data-role": "explain" }, t.hint));
    this.root.querySelector('[data-role="results"]').replaceChildren(...blocks);
    this.result = r;
    this.tokens = tokens;
    this.markScrollable();
    const full = this.root.querySelector('[data-role="full"]');
    if (full) full.href = `${this.root.dataset.full ?? "../playground/"}?${encodeState(s)}`;
  }

  // A matrix too wide for its box scrolls inside it; one with nothing focusable in it gets a tab
  // stop of its own, so that the keyboard can scroll it too.
  markScrollable() {
    for (const box of this.root.querySelectorAll(".qkv-pg-scroll")) {
      const needs = box.scrollWidth > box.clientWidth && !box.querySelector("input, [tabindex]");
      if (needs) box.setAttribute("tabindex", "0");
      else box.removeAttribute("tabindex");
    }
  }

  cell(name, r, i, j, v) {
    const masked = r.mask && !r.mask[i][j] && (name === "scaled" || name === "weights");
    const attrs = { "data-row": i, "data-col": j, class: masked ? "qkv-pg-masked" : null, title: masked ? this.t.masked : null };
    if (name === "weights") {
      // --w drives the heatmap fill (CSS); the ink is picked here for both schemes
      attrs.style = `--w: ${v.toFixed(3)}; --qkv-ink-light: ${ink("light", v)}; --qkv-ink-dark: ${ink("dark", v)}`;
    }
    if (name === "scores") Object.assign(attrs, { tabindex: 0, "data-dot": "" });
    const d = this.decimals[name];
    const text = masked ? (name === "scaled" ? "−∞" : "0") : name === "weights" ? formatWeight(v, d) : formatFixed(v, d);
    return el("td", attrs, text);
  }

  // Hovering or focusing QKᵀ[i][j] lights up Q row i and K row j and writes their dot product out.
  explain(td) {
    for (const node of this.root.querySelectorAll(".qkv-pg-hl")) node.classList.remove("qkv-pg-hl");
    const out = this.root.querySelector('[data-role="explain"]');
    if (!out) return;
    if (!td) { out.textContent = this.t.hint; return; }
    const i = Number(td.dataset.row), j = Number(td.dataset.col);
    const { q, k, scores } = this.result;
    td.classList.add("qkv-pg-hl");
    this.root.querySelector(`[data-matrix="q"] tbody tr:nth-child(${i + 1})`)?.classList.add("qkv-pg-hl");
    this.root.querySelector(`[data-matrix="k"] tbody tr:nth-child(${j + 1})`)?.classList.add("qkv-pg-hl");
    const { text, exact } = dotProductText(q, k, i, j, scores[i][j], { dQ: this.decimals.q, dK: this.decimals.k, dScore: this.decimals.scores });
    out.textContent = this.t.dot(i + 1, j + 1, this.tokens[i], this.tokens[j], text) + (exact ? "" : this.t.rounded);
  }

  changed(rebuild = false) {
    this.say("");
    if (this.badLink) { this.badLink = false; this.root.querySelector('[data-role="bad-link"]')?.remove(); }
    if (rebuild) this.build(); else this.update();
    if (!this.compact) this.remember();
  }

  onInput(e) {
    const target = e.target;
    if (target.dataset.matrix) {
      this.state[target.dataset.matrix][target.dataset.row][target.dataset.col] = target.value;
      target.style.setProperty("--qkv-chars", target.value.length);
      this.changed();
    } else if (target.dataset.role === "token") {
      this.state.tokens[target.dataset.row] = target.value;
      this.changed();
    }
  }

  onChange(e) {
    const s = this.state, role = e.target.dataset.role, value = e.target.value;
    const { n, dModel, dK, dV } = dims(s);
    if (role === "preset") this.state = fromPreset(value, this.data.presets[value]);
    else if (role === "scaling") s.scaling = value;
    else if (role === "causal") s.causal = e.target.checked;
    else if (role === "d_model") {
      s.x = resize(s.x, n, +value);
      for (const w of ["w_q", "w_k"]) s[w] = resize(s[w], +value, dK);
      s.w_v = resize(s.w_v, +value, dV);
    } else if (role === "d_k") for (const w of ["w_q", "w_k"]) s[w] = resize(s[w], dModel, +value);
    else if (role === "d_v") s.w_v = resize(s.w_v, dModel, +value);
    else return;
    const focus = role === "scaling" || role === "causal" ? null : role;
    this.changed(!!focus);
    if (focus) this.root.querySelector(`[data-role="${focus}"]`)?.focus(); // keep the keyboard where it was
  }

  onClick(e) {
    const button = e.target.closest("button");
    if (!button) return;
    const s = this.state, role = button.dataset.role;
    if (role === "reset") {
      this.state = fromPreset(s.preset, this.data.presets[s.preset]);
      this.changed(true);
      this.root.querySelector('[data-role="reset"]').focus();
    } else if (role === "add") {
      s.tokens.push(`t${s.tokens.length + 1}`);
      s.x.push(s.x[0].map(() => "0"));
      this.changed(true);
      this.root.querySelector(`[data-role="token"][data-row="${s.tokens.length - 1}"]`)?.focus();
    } else if (role === "remove") {
      const i = Number(button.dataset.row);
      s.tokens.splice(i, 1);
      s.x.splice(i, 1);
      this.changed(true);
      this.root.querySelector('[data-role="add"]')?.focus();
    } else if (role === "share") {
      this.remember();
      const say = (message) => this.say(message, STATUS_MS);
      navigator.clipboard?.writeText(location.href).then(() => say(this.t.copied), () => say(this.t.copyFailed)) ?? say(this.t.copyFailed);
    }
  }

  // The share button's answer: shown for `ms` milliseconds, or until the next edit.
  say(message, ms = 0) {
    clearTimeout(this.statusTimer);
    const status = this.root.querySelector('[data-role="share-status"]');
    if (status) status.textContent = message;
    if (message && ms) this.statusTimer = setTimeout(() => this.say(""), ms);
  }

  // Arrow keys move between the cells of one matrix (left/right only from the edge of the text).
  onKey(e) {
    const from = e.target;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (!moves[e.key] || from.dataset.col == null || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (from.tagName === "INPUT") {
      const atStart = from.selectionStart === 0 && from.selectionEnd === 0;
      const atEnd = from.selectionStart === from.value.length;
      if ((e.key === "ArrowLeft" && !atStart) || (e.key === "ArrowRight" && !atEnd)) return;
    }
    const [di, dj] = moves[e.key];
    const row = Number(from.dataset.row) + di, col = Number(from.dataset.col) + dj;
    const next = from.closest("table").querySelector(`[data-row="${row}"][data-col="${col}"]:is(input, td[tabindex])`);
    if (next) { e.preventDefault(); next.focus(); next.select?.(); }
  }
}

function init() {
  const roots = document.querySelectorAll(".qkv-playground:not([data-qkv-ready])");
  if (!roots.length) return;
  const json = document.getElementById("qkv-playground-presets");
  if (!json) return;
  const data = JSON.parse(json.textContent);
  for (const root of roots) {
    root.setAttribute("data-qkv-ready", "");
    new Playground(root, data);
  }
}

// Material's document$ emits on every page load (also with instant navigation); init() is idempotent.
if (window.document$?.subscribe) window.document$.subscribe(() => init());
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
else init();
