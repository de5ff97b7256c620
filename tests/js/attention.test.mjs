// The playground's math on its own (node --test tests/js/): the same numbers qkv computes.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  attention, causalMask, decimalsOf, dotProductText, formatFixed, formatNumber, formatWeight, matmul, parseCell, scalingFactor,
  softmax, softmaxRow, transpose,
} from "../../docs/assets/javascripts/playground/attention.js";

const close = (actual, expected, tol = 1e-9) =>
  actual.flat().forEach((v, i) => assert.ok(Math.abs(v - expected.flat()[i]) <= tol, `${v} vs ${expected.flat()[i]}`));

// The article's "I love" example (qkv.examples.worked_example).
const article = {
  x: [[1, 0, 1, 0], [0, 1, 0, 1]],
  wQ: [[1, 0, 1], [0, 1, 0], [1, 0, 0], [0, 1, 1]],
  wK: [[1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1]],
  wV: [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]],
};

test("matmul and transpose", () => {
  assert.deepEqual(matmul([[1, 2], [3, 4]], [[5], [6]]), [[17], [39]]);
  assert.deepEqual(transpose([[1, 2, 3]]), [[1], [2], [3]]);
  assert.throws(() => matmul([[1, 2]], [[1, 2]]));
});

test("softmax rows sum to 1", () => {
  for (const row of softmax([[1, 2, 3], [-5, 0, 5, 10], [0.1, 0.1]])) {
    assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  }
});

test("softmax matches a hand-computed case", () => {
  // [0, ln 3]: e^0 = 1 and e^ln3 = 3, so the weights are 1/4 and 3/4.
  close([softmaxRow([0, Math.log(3)])], [[0.25, 0.75]], 1e-12);
  close([softmaxRow([1, 2, 3])], [[0.09003057317038046, 0.24472847105479767, 0.6652409557748219]], 1e-12);
});

test("softmax is stable for ±1e4 and gives masked (-Infinity) entries weight 0", () => {
  assert.deepEqual(softmaxRow([1e4, -1e4]), [1, 0]);
  assert.deepEqual(softmaxRow([1e4, 1e4]), [0.5, 0.5]);
  assert.deepEqual(softmaxRow([-1e4, -1e4 + Math.log(3)]).map((v) => Math.round(v * 1e12) / 1e12), [0.25, 0.75]);
  assert.deepEqual(softmaxRow([0, -Infinity]), [1, 0]);
  assert.throws(() => softmaxRow([-Infinity, -Infinity]));
});

test("attention on the article's example gives its weights and output", () => {
  const r = attention({ ...article, scaling: "sqrt_d_k" });
  assert.deepEqual(r.scores, [[2, 1], [2, 3]]);
  close(r.weights, [[0.64, 0.36], [0.36, 0.64]], 0.005);
  close(r.output, [[0.64, 0.36, 0.64], [0.36, 0.64, 0.36]], 0.005);
  assert.deepEqual(r.weights.map((row) => row.map(formatNumber)), [["0.64", "0.36"], ["0.36", "0.64"]]);
});

test("scalings and the causal mask", () => {
  assert.deepEqual(["none", "d_k", "sqrt_d_k"].map((s) => scalingFactor(s, 4)), [1, 0.25, 0.5]);
  assert.deepEqual(causalMask(2), [[true, false], [true, true]]);
  const masked = attention({ ...article, causal: true });
  assert.deepEqual(masked.weights[0], [1, 0]); // "I" can no longer see "love"
  assert.equal(masked.scaled[0][1], -Infinity);
  const none = attention({ ...article, scaling: "none" });
  assert.ok(none.weights[0][0] > attention(article).weights[0][0]); // no scaling: sharper
});

test("a missing input blanks only what depends on it", () => {
  const r = attention({ ...article, wV: null });
  assert.ok(r.weights && r.q && r.k);
  assert.equal(r.v, null);
  assert.equal(r.output, null);
});

test("numbers are formatted like qkv_site.values.formatting.number", () => {
  const cases = { 2: "2", "-1": "-1", 1.1547: "1.15", 0.6404: "0.64", "-0.001": "0", 0.125: "0.12", 0.375: "0.38", "-0.125": "-0.12", 2.675: "2.67" };
  for (const [input, expected] of Object.entries(cases)) assert.equal(formatNumber(Number(input)), expected, input);
  assert.equal(formatNumber(-0), "0");
});

test("the dot product written out", () => {
  const { q, k, scores } = attention(article);
  assert.deepEqual(dotProductText(q, k, 0, 0, scores[0][0]), { text: "2×1 + 0×1 + 1×0 = 2", exact: true });
  assert.deepEqual(dotProductText([[-1, 0.5]], [[2, 2]], 0, 0, -1), { text: "(-1)×2 + 0.50×2 = -1", exact: true });
  // each matrix in its own format: Q with decimals, K and the scores as integers
  assert.deepEqual(dotProductText([[1, 0.5]], [[2, 2]], 0, 0, 3, { dQ: 2, dK: 0, dScore: 2 }),
    { text: "1.00×2 + 0.50×2 = 3.00", exact: true });
  // rounded numbers do not multiply out to the sum shown: "≈", and exact is false
  const third = 1 / 3;
  assert.deepEqual(dotProductText([[third, third]], [[1, 2]], 0, 0, third * 3, { dQ: 2, dK: 0, dScore: 0 }),
    { text: "0.33×1 + 0.33×2 ≈ 1", exact: false });
});

test("one format per matrix, and a tiny weight is not a 0", () => {
  assert.equal(decimalsOf([[1, 2], [3, -4]]), 0);
  assert.equal(decimalsOf([[1, 0.5]]), 2);
  assert.equal(decimalsOf([[1, -Infinity]]), 0); // a masked score does not decide the format
  assert.deepEqual([1, 0.5, -0.001, 0.125].map((v) => formatFixed(v, 2)), ["1.00", "0.50", "0.00", "0.12"]);
  assert.deepEqual([1, -3, 0].map((v) => formatFixed(v, 0)), ["1", "-3", "0"]);
  assert.equal(formatWeight(1e-5, 2), "<0.01");
  assert.equal(formatWeight(0, 2), "0.00"); // an unmasked weight that is exactly 0 (exp underflow)
  assert.equal(formatWeight(0.004, 2), "<0.01");
  assert.equal(formatWeight(0.006, 2), "0.01");
  assert.equal(formatWeight(1, 0), "1");
});

test("cells: numbers in, everything else an error", () => {
  assert.deepEqual(parseCell(" 1.5 ", 1000), { value: 1.5 });
  assert.deepEqual(parseCell("−2", 1000), { value: -2 }); // Unicode minus
  assert.deepEqual(parseCell("３", 1000), { value: 3 }); // full-width digit
  assert.deepEqual(parseCell("1e3", 1000), { value: 1000 });
  for (const [text, error] of [["", "empty"], ["abc", "nan"], ["1,5", "nan"], ["0x10", "nan"], ["Infinity", "nan"], ["NaN", "nan"], ["1e6", "big"], ["1e400", "big"]]) {
    assert.deepEqual(parseCell(text, 1000), { error }, text);
  }
});
