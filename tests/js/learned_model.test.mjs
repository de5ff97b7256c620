// The learned model's forward pass in JavaScript (docs/assets/javascripts/learned/model.js) against numpy.
// tests/build/test_learned_widget_model.py writes what qkv.learning computes into a JSON file and runs this test
// with QKV_LEARNED_EXPECTED set to it; run on its own (node --test tests/js/), it has nothing to compare.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { decoded, heldout, matchFrame, resolve, run, sentenceOf, tokens } from "../../docs/assets/javascripts/learned/model.js";

const path = process.env.QKV_LEARNED_EXPECTED;
const skip = path ? false : "QKV_LEARNED_EXPECTED is not set (tests/build/test_learned_widget_model.py sets it)";
const expected = path ? JSON.parse(readFileSync(path, "utf-8")) : { models: {}, cases: [] };
// the models as the page's files hold them (integer weights), read as the widget reads them
for (const [task, file] of Object.entries(expected.models)) expected.models[task] = decoded(file);

let largest = 0;
function close(actual, wanted, what) {
  const a = [actual].flat(Infinity), b = [wanted].flat(Infinity);
  assert.equal(a.length, b.length, `${what}: ${a.length} numbers, numpy has ${b.length}`);
  a.forEach((x, i) => {
    const d = Math.abs(x - b[i]);
    largest = Math.max(largest, d);
    assert.ok(d <= 1e-9, `${what}[${i}]: ${x} vs numpy ${b[i]}`);
  });
}

test("every sentence's weights, rollout and answer equal numpy's to 1e-9", { skip }, () => {
  for (const c of expected.cases) {
    const model = expected.models[c.task];
    const r = run(model, c.sentence, { cut: c.cut, layers: c.layers });
    assert.deepEqual(r.words, c.words);
    assert.equal(r.error, undefined, `${c.sentence}: ${r.error}`);
    close(r.intact.layers.map((l) => l.weights), c.weights, `${c.sentence} weights`);
    close(r.rollout, c.rollout, `${c.sentence} rollout`);
    close(r.intact.probabilities, c.probabilities, `${c.sentence} probabilities`);
    assert.equal(resolve(r.intact).word, c.answer, c.sentence);
    if (c.cut !== null) {
      close(r.ablated.layers.map((l) => l.weights), c.ablated_weights, `${c.sentence} ablated weights`);
      close(r.ablated.probabilities, c.ablated_probabilities, `${c.sentence} ablated probabilities`);
    }
  }
  console.log(`# largest difference from numpy: ${largest}`);
});

test("a sentence's held-out status is qkv.learning's split", { skip }, () => {
  for (const c of expected.cases) {
    const model = expected.models[c.task];
    assert.equal(heldout(model, tokens(c.sentence)), c.heldout, c.sentence);
    const slots = matchFrame(model, tokens(c.sentence));
    if (slots) assert.equal(sentenceOf(model, slots), tokens(c.sentence).join(" "));
  }
});

test("what the model cannot read is said, not computed", { skip }, () => {
  const model = expected.models.coreference;
  assert.deepEqual(run(model, "The purple animal didn't cross the street because it was too zorgy").unknown, ["purple", "zorgy"]);
  assert.equal(run(model, "the animal didn't cross the street").error, "it");
  assert.deepEqual(run(model, "the dog didn't cross the cat because it was too tired"),
    { words: tokens("the dog didn't cross the cat because it was too tired"), error: "kind", kind: "animal", count: 2 });
  assert.equal(run(expected.models.referent, "the dog was too tired because it was too tired").error, "nouns");
  assert.equal(run(model, "").error, "empty");
});
