// The two-layer model of qkv.learning, forward pass only, in plain JavaScript: one function per step,
// named as in qkv.learning (network.forward, rollout.rollout_weights, ablation._remove). `model` is the
// exported JSON (qkv_site.builder.learned_models): model_data's options, vocabulary, outputs and
// parameters, and the task's sentences. No DOM: node's test runner checks it against numpy.
import { matmul, softmaxRow, transpose } from "../playground/attention.js";

const PAD = "<pad>";

const DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"; // base64's, in its order

/**
 * The weight matrices of the page's file, as integers (learned_models.packed and unpacked): one after the
 * other, row by row, each integer zigzagged (0, 1, 2, 3, … for 0, -1, 1, -2, …), its low bytes in `low`
 * (base64, little-endian) and the rest in `high` (one base64 digit each).
 */
function integerMatrices({ shapes, low, high }) {
  const bytes = Uint8Array.from(atob(low), (c) => c.charCodeAt(0));
  const width = bytes.length / high.length;
  const integers = Array.from(high, (digit, i) => {
    let z = DIGITS.indexOf(digit);
    for (let b = width - 1; b >= 0; b--) z = z * 256 + bytes[i * width + b];
    return z % 2 ? -(z + 1) / 2 : z / 2;
  });
  let start = 0;
  return Object.fromEntries(Object.entries(shapes).map(([name, [rows, columns]]) => {
    const matrix = Array.from({ length: rows }, (_, r) => integers.slice(start + r * columns, start + (r + 1) * columns));
    start += rows * columns;
    return [name, matrix];
  }));
}

/**
 * The model as the page's file holds it (every weight an integer, w · 10^decimals, packed) with its weights
 * as numbers: each integer / 10^decimals, the division numpy does (learned_models.exported_model).
 */
export function decoded(file) {
  const scale = 10 ** file.decimals;
  const matrices = integerMatrices(file.parameters);
  const parameters = Object.fromEntries(Object.entries(matrices).map(([name, w]) => [name, w.map((row) => row.map((x) => x / scale))]));
  return { ...file, parameters };
}

/** The sentence's words as qkv.learning reads them: lower-case, punctuation [.,;:!?] taken out. */
export function tokens(sentence) {
  return sentence.toLowerCase().replace(/[.,;:!?]/g, " ").split(/\s+/).filter(Boolean);
}

/** The words of `words` the model does not know, each once, in order. */
export function unknownWords(model, words) {
  const known = new Set(model.vocabulary.filter((w) => w !== PAD));
  return [...new Set(words.filter((w) => !known.has(w)))];
}

/**
 * Token ids, the position of "it" and the candidates, as sentences.encode / referent_sentences.batch:
 * { ids, it, candidates } or { error, ... } naming what is wrong (the widget words it).
 * coreference: candidates = [animal's position, place's position]; referent: the readout scores every noun.
 */
export function encode(model, words) {
  if (!words.length) return { error: "empty" };
  const unknown = unknownWords(model, words);
  if (unknown.length) return { error: "unknown", unknown };
  const its = words.flatMap((w, i) => (w === "it" ? [i] : []));
  if (its.length !== 1) return { error: "it", count: its.length };
  const { nouns } = model.sentences;
  let candidates = null;
  if (model.options.task === "coreference") {
    candidates = [];
    for (const kind of ["animal", "place"]) {
      const where = words.flatMap((w, i) => (nouns[kind].includes(w) ? [i] : []));
      if (where.length !== 1) return { error: "kind", kind, count: where.length };
      candidates.push(where[0]);
    }
  } else {
    const all = Object.values(nouns).flat();
    const count = words.filter((w) => all.includes(w)).length;
    if (count < 2) return { error: "nouns", count };
  }
  const maxLength = model.parameters.position.length;
  if (words.length > maxLength) return { error: "long", count: words.length, max: maxLength };
  return { ids: words.map((w) => model.vocabulary.indexOf(w)), it: its[0], candidates };
}

/** x = token embedding + position embedding, one row per word: (n, d_model). */
export function embed(model, ids) {
  const { embedding, position } = model.parameters;
  return ids.map((id, i) => embedding[id].map((e, j) => e + position[i][j]));
}

/** One layer: Q = H·W_Q, K = H·W_K, V = H·W_V, weights = softmax(Q·Kᵀ · scale); H' = H + weights·V (the residual). */
export function attentionLayer(model, h, layer, edit = null) {
  const p = model.parameters;
  const q = matmul(h, p[`w_q${layer}`]); // (n, d_model) @ (d_model, d_k) -> (n, d_k)
  const k = matmul(h, p[`w_k${layer}`]); // (n, d_k)
  const v = matmul(h, p[`w_v${layer}`]); // (n, d_model)
  const scores = matmul(q, transpose(k)).map((row) => row.map((s) => s * model.options.scale)); // (n, n)
  let weights = scores.map(softmaxRow); // (n, n), each row sums to 1
  if (edit) weights = edit(layer, weights);
  const mixed = matmul(weights, v); // (n, n) @ (n, d_model) -> (n, d_model)
  return { q, k, v, weights, h: h.map((row, i) => row.map((x, j) => x + mixed[i][j])) };
}

/**
 * The readout at "it": logit_c = h_it · t_c / √d_model over the answers' vectors t_c (the candidates'
 * position embeddings, or every noun's token embedding), then softmax, as network.forward's log-softmax.
 */
export function readout(model, out, candidates) {
  const p = model.parameters;
  const targets = model.outputs === null
    ? candidates.map((i) => p.position[i])
    : model.outputs.map((w) => p.embedding[model.vocabulary.indexOf(w)]);
  const root = Math.sqrt(out.length);
  const logits = targets.map((t) => t.reduce((sum, x, j) => sum + out[j] * x, 0) / root);
  const max = Math.max(...logits);
  const shifted = logits.map((l) => l - max);
  const logTotal = Math.log(shifted.reduce((sum, l) => sum + Math.exp(l), 0));
  return shifted.map((l) => Math.exp(l - logTotal));
}

/**
 * The whole forward pass on one encoded sentence: { layers: [{ weights, … }], out, probabilities, answers }.
 * answers[c] is the word probabilities[c] is for. `edit(layer, weights)` returns the weights a layer uses.
 */
export function forward(model, encoded, { edit = null } = {}) {
  let h = embed(model, encoded.ids);
  const layers = [];
  for (let layer = 1; layer <= model.options.n_layers; layer++) {
    const result = attentionLayer(model, h, layer, edit);
    layers.push(result);
    h = result.h;
  }
  const out = h[encoded.it]; // the prediction reads the vector at "it" only
  const probabilities = readout(model, out, encoded.candidates);
  const answers = model.outputs === null
    ? encoded.candidates.map((i) => model.vocabulary[encoded.ids[i]])
    : [...model.outputs];
  return { layers, out, probabilities, answers };
}

/** The likeliest answer: { word, probability }. */
export function resolve(result) {
  let best = 0;
  result.probabilities.forEach((p, c) => { if (p > result.probabilities[best]) best = c; });
  return { word: result.answers[best], probability: result.probabilities[best] };
}

/** Attention rollout (rollout.rollout_weights): Â_l = (1 − r)·A_l + r·I, rows renormalised, R_l = Â_l · R_(l−1). */
export function rolloutWeights(attention, residual = 0.5) {
  const out = [];
  let rolled = null;
  for (const a of attention) {
    let hat = a.map((row, i) => row.map((w, j) => (1 - residual) * w + residual * (i === j ? 1 : 0)));
    hat = hat.map((row) => { const total = row.reduce((s, w) => s + w, 0); return row.map((w) => w / total); });
    rolled = rolled === null ? hat : matmul(hat, rolled);
    out.push(rolled);
  }
  return out;
}

/** "it"'s row with the edge it → target set to 0 and divided by its new sum (ablation._remove); all 0 if nothing is left. */
export function removeEdge(weights, it, target) {
  const edited = weights.map((row) => [...row]);
  edited[it][target] = 0;
  const total = edited[it].reduce((s, w) => s + w, 0);
  edited[it] = edited[it].map((w) => (total > 0 ? w / total : 0));
  return edited;
}

/** An `edit` for forward: remove it → target in each layer of `layers` (counted from 1). */
export function ablation(it, target, layers) {
  return (layer, weights) => (layers.includes(layer) ? removeEdge(weights, it, target) : weights);
}

/** Everything the widget shows for one sentence: the intact pass, its rollout, and the pass with an edge removed. */
export function run(model, sentence, { cut = null, layers = null } = {}) {
  const words = tokens(sentence);
  const encoded = encode(model, words);
  if (encoded.error) return { words, ...encoded };
  const intact = forward(model, encoded);
  const result = { words, encoded, intact, rollout: rolloutWeights(intact.layers.map((l) => l.weights)) };
  if (cut !== null && cut !== encoded.it && cut >= 0 && cut < words.length) {
    const chosen = layers ?? Array.from({ length: model.options.n_layers }, (_, i) => i + 1);
    result.ablated = forward(model, encoded, { edit: ablation(encoded.it, cut, chosen) });
    result.cut = cut;
    result.cutLayers = chosen;
  }
  return result;
}

const escape = (word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const oneOf = (words) => words.filter(Boolean).map(escape).join("|");

/** A frame as a regular expression over the joined words, with a named group per slot. */
function frameExpression(model, frame) {
  const { nouns, adjectives, prefixes = [""], intensifiers = [], after_nouns: after = [""] } = model.sentences;
  const adjective = oneOf(Object.values(adjectives).flat());
  const slots = {
    animal: `(?<animal>${oneOf(nouns.animal)})`, place: `(?<place>${oneOf(nouns.place)})`, adjective: `(?<adjective>${adjective})`,
    a: `(?<animal>${oneOf(nouns.animal)})`, p: `(?<place>${oneOf(nouns.place)})`, o: `(?<object>${oneOf(nouns.object ?? [])})`,
    j: `(?<adjective>${adjective})`, i: `(?<intensifier>${oneOf(intensifiers)})`, m: `(?<after>(?: (?:${oneOf(after)}))?)`,
  };
  const body = frame.split(/(\{\w+\})/).map((part) => (/^\{\w+\}$/.test(part) ? slots[part.slice(1, -1)] : escape(part))).join("");
  const prefix = prefixes.some(Boolean) ? `(?:(?<prefix>${oneOf(prefixes)}) )?` : "";
  return new RegExp(`^${prefix}${body}$`);
}

/**
 * Which of the task's frames `words` is, with its slots ({ frame, animal, place, object?, adjective, prefix?,
 * intensifier?, after? }), or null for a sentence of the reader's own form.
 */
export function matchFrame(model, words) {
  const text = words.join(" ");
  for (const [frame, pattern] of model.sentences.frames.entries()) {
    const found = frameExpression(model, pattern).exec(text);
    if (found) {
      const slots = { frame, ...found.groups };
      if ("after" in slots) slots.after = slots.after.trim();
      if ("prefix" in slots) slots.prefix ??= "";
      return slots;
    }
  }
  return null;
}

/** The kind ("animal", "place", "object") of an adjective. */
export function kindOf(model, adjective) {
  return Object.keys(model.sentences.adjectives).find((kind) => model.sentences.adjectives[kind].includes(adjective));
}

/**
 * Whether training saw this sentence's combination, as qkv.learning splits its sentences: "train", or what is
 * new — coreference: "triple" (the animal, place and adjective never together); referent: "referent" (this
 * noun never the answer with this adjective), "pair" (this frame never with this adjective) or "both";
 * "other" for a sentence outside the task's frames.
 */
export function heldout(model, words) {
  const slots = matchFrame(model, words);
  if (!slots) return "other";
  const s = model.sentences;
  const has = (list, a, b) => list.some(([x, y]) => x === a && y === b);
  if (model.options.task === "coreference") {
    return s.heldout_triples.some(([a, p, j]) => a === slots.animal && p === slots.place && j === slots.adjective) ? "triple" : "train";
  }
  const referent = slots[kindOf(model, slots.adjective)];
  const newReferent = has(s.heldout_referents, referent, slots.adjective);
  const newPair = has(s.heldout_frames, slots.frame, slots.adjective);
  return newReferent && newPair ? "both" : newReferent ? "referent" : newPair ? "pair" : "train";
}

/** The sentence a frame and its slots make (the inverse of matchFrame). */
export function sentenceOf(model, slots) {
  const frame = model.sentences.frames[slots.frame];
  const value = { animal: slots.animal, place: slots.place, adjective: slots.adjective, a: slots.animal, p: slots.place,
    o: slots.object, j: slots.adjective, i: slots.intensifier, m: slots.after ? ` ${slots.after}` : "" };
  const body = frame.replace(/\{(\w+)\}/g, (_, name) => value[name]);
  return slots.prefix ? `${slots.prefix} ${body}` : body;
}
