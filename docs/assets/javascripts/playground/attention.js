// The attention math of the playground: small pure functions on arrays of rows, no DOM.
// They follow qkv (src/qkv) step by step, so the page shows what the Python package computes.

/** A·B for a (n×m) and b (m×p), as arrays of rows. */
export function matmul(a, b) {
  const m = b.length;
  if (a.some((row) => row.length !== m)) throw new Error(`matmul: ${a[0]?.length} columns vs ${m} rows`);
  const p = m ? b[0].length : 0;
  return a.map((row) => {
    const out = new Array(p).fill(0);
    for (let t = 0; t < m; t++) for (let j = 0; j < p; j++) out[j] += row[t] * b[t][j];
    return out;
  });
}

/** Aᵀ. */
export function transpose(a) {
  return a.length ? a[0].map((_, j) => a.map((row) => row[j])) : [];
}

/** Every entry multiplied by s. */
export function scale(a, s) {
  return a.map((row) => row.map((v) => v * s));
}

/** The factor the scores are multiplied by, as qkv.analysis.scaling_factor: none → 1, d_k → 1/d_k, sqrt_d_k → 1/√d_k. */
export function scalingFactor(strategy, dK) {
  if (strategy === "none") return 1;
  if (strategy === "d_k") return 1 / dK;
  if (strategy === "sqrt_d_k") return 1 / Math.sqrt(dK);
  throw new Error(`unknown scaling ${strategy}`);
}

/** Boolean n×n lower-triangular mask: token i may attend to tokens 0..i (true = may attend). */
export function causalMask(n) {
  return Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => j <= i));
}

/** Scores with every masked entry set to -Infinity, so that exp() gives it weight 0. */
export function applyMask(scores, mask) {
  return scores.map((row, i) => row.map((v, j) => (mask[i][j] ? v : -Infinity)));
}

/** softmax of one row, stably: subtracting the row maximum keeps every exponent <= 0, so ±1e4 is fine. */
export function softmaxRow(row) {
  const max = Math.max(...row);
  if (!Number.isFinite(max)) throw new Error("softmax: a row needs at least one finite entry");
  const exps = row.map((v) => Math.exp(v - max)); // the largest is exp(0) = 1, -Infinity gives 0
  const total = exps.reduce((s, e) => s + e, 0); // >= 1: never 0/0
  return exps.map((e) => e / total);
}

/** softmax of every row. */
export function softmax(rows) {
  return rows.map(softmaxRow);
}

/**
 * Self-attention with every intermediate, as in the article's five steps:
 * Q = X·W_Q, K = X·W_K, V = X·W_V, scores = Q·Kᵀ, scaled = scores·factor (masked → -Infinity),
 * weights = softmax(scaled), output = weights·V.
 * An input may be null (the reader's cell is not a number yet): whatever depends on it is null too.
 */
export function attention({ x, wQ, wK, wV, scaling = "sqrt_d_k", causal = false }) {
  const project = (w) => (x && w ? matmul(x, w) : null); // (n, d_model) @ (d_model, d) -> (n, d)
  const q = project(wQ); // (n, d_k)
  const k = project(wK); // (n, d_k)
  const v = project(wV); // (n, d_v)
  const mask = causal && x ? causalMask(x.length) : null;
  let scores = null, factor = null, scaled = null, weights = null;
  if (q && k) {
    scores = matmul(q, transpose(k)); // (n, d_k) @ (d_k, n) -> (n, n)
    factor = scalingFactor(scaling, q[0].length);
    scaled = mask ? applyMask(scale(scores, factor), mask) : scale(scores, factor);
    weights = softmax(scaled); // (n, n), rows sum to 1
  }
  const output = weights && v ? matmul(weights, v) : null; // (n, n) @ (n, d_v) -> (n, d_v)
  return { q, k, v, scores, factor, mask, scaled, weights, output };
}

/** true when every entry of every matrix is a finite number. */
export function allFinite(...matrices) {
  return matrices.every((m) => m.every((row) => row.every(Number.isFinite)));
}

/** x with two decimals, exact halves rounded to even as Python does (0.125 → "0.12"); "-0.00" is "0.00". */
function twoDecimals(x) {
  let text = x.toFixed(2); // toFixed rounds exact halves up; with two decimals they are the odd multiples of 1/8
  if (Number.isInteger(x * 8) && !Number.isInteger(x * 4)) {
    const hundredths = Math.abs(x) * 100; // exact: x is j/8
    const down = Math.floor(hundredths);
    const even = down % 2 === 0 ? down : down + 1;
    text = (x < 0 ? "-" : "") + (even / 100).toFixed(2);
  }
  return Number(text) === 0 ? "0.00" : text;
}

/**
 * A number as the site writes it (qkv_site.values.formatting.number): integers bare, the rest with two
 * decimals, "-0.00" as "0".
 */
export function formatNumber(x) {
  if (Number.isInteger(x)) return String(x === 0 ? 0 : x);
  const text = twoDecimals(x);
  return text === "0.00" ? "0" : text;
}

/** How many decimals a matrix is written with: 0 when every finite entry is an integer, else 2. */
export function decimalsOf(matrix) {
  return matrix.every((row) => row.every((v) => !Number.isFinite(v) || Number.isInteger(v))) ? 0 : 2;
}

/** x with `decimals` (0 or 2) decimals, so that every cell of one matrix looks alike: "1.00" next to "0.50". */
export function formatFixed(x, decimals) {
  if (decimals === 0 && Number.isInteger(x)) return String(x === 0 ? 0 : x);
  return twoDecimals(x);
}

/** A softmax weight: as formatFixed, but a weight too small to show is "<0.01", never a 0 like a masked one. */
export function formatWeight(w, decimals) {
  const text = formatFixed(w, decimals);
  return w > 0 && Number(text) === 0 ? "<0.01" : text;
}

/** A number as a factor of a product (qkv_site.values.formatting.factor): negatives in parentheses. */
export function formatFactor(x, decimals = null) {
  const text = decimals == null ? formatNumber(x) : formatFixed(x, decimals);
  return text.startsWith("-") ? `(${text})` : text;
}

/**
 * The dot product of Q row i and K row j written out: "2×1 + 0×1 + 1×0 = 2", each matrix with its
 * own decimals (`dQ`, `dK`, `dScore`; null: formatNumber). When a number shown is not the number
 * used, the sum is written "≈" and `exact` is false, so the reader is told the numbers are rounded.
 */
export function dotProductText(q, k, i, j, score, { dQ = null, dK = null, dScore = null } = {}) {
  const show = (x, d) => (d == null ? formatNumber(x) : formatFixed(x, d));
  const shown = (x, d) => Number(show(x, d)) === x;
  const exact = q[i].every((a, t) => shown(a, dQ) && shown(k[j][t], dK)) && shown(score, dScore);
  const terms = q[i].map((a, t) => `${formatFactor(a, dQ)}×${formatFactor(k[j][t], dK)}`);
  return { text: `${terms.join(" + ")} ${exact ? "=" : "≈"} ${show(score, dScore)}`, exact };
}

/**
 * A cell of text as a number, or an error code: "empty", "nan" (not a number) or "big" (|x| > limit).
 * Accepts a Unicode or full-width minus and full-width digits, as typed with a Chinese input method.
 */
export function parseCell(text, limit) {
  const ascii = String(text)
    .replace(/[\uFF0B-\uFF19]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0))
    .replace(/[\u2212\u2013]/g, "-")
    .trim();
  if (ascii === "") return { error: "empty" };
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(ascii)) return { error: "nan" };
  const value = Number(ascii);
  if (!Number.isFinite(value) || Math.abs(value) > limit) return { error: "big" };
  return { value: value === 0 ? 0 : value };
}
