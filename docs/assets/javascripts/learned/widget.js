// The learned-attention widget: the reader's own sentence through the stored model the build loaded (trained once beforehand).
// Any <div class="qkv-learned-widget" data-model="coreference|referent"> becomes one (load.js imports this
// module only on a page that has one). The model is the page's own file, learned-model-<task>.json
// (qkv_site.builder.learned_models); the math is model.js. The sentence and the removed edge live in the
// query (?coreference=…&coreference-cut=5&coreference-layers=1,2), so a shared link restores them.
// The widget first draws the article's sentence from the numbers the build wrote into its tag (data-first,
// qkv_site.builder.learned_first) and fetches its model only when the reader first points at, focuses or
// uses one of its controls; an address with a state of its own fetches it at once.
import { decoded, heldout, matchFrame, resolve, rolloutWeights, run, sentenceOf, tokens } from "./model.js";

const STRINGS = {
  zh: {
    region: { coreference: "用你自己的句子试试：动物还是地点？", referent: "用你自己的句子试试：三个名词里选哪一个？" },
    build: "拼一个句子", own: "或者自己输入一句（只能用模型认识的词）",
    slots: { frame: "句式", animal: "动物", place: "地点", object: "物体", adjective: "形容词", prefix: "开头", intensifier: "程度", after: "名词后" },
    kinds: { animal: "形容动物的", place: "形容地点的", object: "形容物体的" }, nothing: "（无）",
    heldoutMark: "（训练中未见）",
    unknown: (words, n) => `模型不认识这些词：${words.map((w) => `“${w}”`).join("、")}。它只认识训练时见过的 ${n} 个词。`,
    errors: {
      empty: () => "请输入一句话。", it: ({ count }) => `句子里要有且只有一个 “it”（现在有 ${count} 个）。`,
      kind: ({ kind, count }) => `句子里要有且只有一个${kind === "animal" ? "动物" : "地点"}（现在有 ${count} 个）。`,
      nouns: ({ count }) => `句子里至少要有两个名词让 “it” 去选（现在有 ${count} 个）。`,
      long: ({ count, max }) => `句子有 ${count} 个词，模型只有 ${max} 个位置。`,
    },
    status: {
      train: "训练中见过这种组合。", triple: "留出的句子：训练中从没见过这个动物、地点和形容词在一起。",
      referent: "留出的句子：训练中这个名词从没和这个形容词一起作为答案。", pair: "留出的句子：训练中这个句式从没和这个形容词一起出现。",
      both: "留出的句子：这个名词和形容词、这个句式和形容词，训练中都没一起出现过。", other: "这个句式不在训练的句式里：模型从没见过这种写法。",
    },
    answer: (w, p) => `模型认为 “it” 指的是 “${w}”，概率${p}。`,
    ablated: (w, p, same) => `去掉这条边之后：“${w}”，概率${p}${same ? "（答案没变）" : "（答案变了）"}。`,
    percent: (p) => `为 ${p}%`, above: "超过 99.9%", below: "不到 0.1%",
    ablate: "去掉一条注意力边", remove: "去掉 “it” →", layersLabel: "在哪一层去掉", layers: [["1,2", "两层都去掉"], ["1", "只在第 1 层"], ["2", "只在第 2 层"]],
    word: "词", layer: (l) => `第 ${l} 层`, rollout: "rollout（两层合计）", removed: "已去掉",
    caption: (ablated) => `“it” 这一行的注意力权重（每一列加起来是 1）${ablated ? "，去掉那条边之后" : ""}；最后一列是 rollout：经过两层之后，每个词流进 “it” 的份额。`,
    loading: "正在载入模型……", failed: "模型没能载入。",
  },
  en: {
    region: { coreference: "Try your own sentence: the animal or the place?", referent: "Try your own sentence: which of three nouns?" },
    build: "Build a sentence", own: "Or type your own (with words the model knows)",
    slots: { frame: "Frame", animal: "Animal", place: "Place", object: "Object", adjective: "Adjective", prefix: "Start", intensifier: "Intensifier", after: "After the nouns" },
    kinds: { animal: "fits an animal", place: "fits a place", object: "fits an object" }, nothing: "(none)",
    heldoutMark: " (held out)",
    unknown: (words, n) => `The model does not know ${words.map((w) => `“${w}”`).join(", ")}. It knows only the ${n} words it was trained on.`,
    errors: {
      empty: () => "Type a sentence.", it: ({ count }) => `The sentence needs exactly one “it” (it has ${count}).`,
      kind: ({ kind, count }) => `The sentence needs exactly one ${kind} (it has ${count}).`,
      nouns: ({ count }) => `The sentence needs at least two nouns for “it” to choose from (it has ${count}).`,
      long: ({ count, max }) => `The sentence has ${count} words; the model has positions for ${max}.`,
    },
    status: {
      train: "Training saw this combination.", triple: "Held out: training never saw this animal, place and adjective together.",
      referent: "Held out: in training this noun was never the answer with this adjective.", pair: "Held out: training never saw this frame with this adjective.",
      both: "Held out: training never saw this noun with this adjective as the answer, nor this frame with this adjective.",
      other: "Not one of the training frames: the model never saw a sentence of this form.",
    },
    answer: (w, p) => `The model reads “it” as “${w}”, with probability ${p}.`,
    percent: (p) => `${p}%`, above: "> 99.9%", below: "< 0.1%",
    ablated: (w, p, same) => `With the edge removed: “${w}”, probability ${p}${same ? " (the same answer)" : " (the answer changes)"}.`,
    ablate: "Remove an attention edge", remove: "Remove “it” →", layersLabel: "In which layers", layers: [["1,2", "both layers"], ["1", "layer 1 only"], ["2", "layer 2 only"]],
    word: "Word", layer: (l) => `Layer ${l}`, rollout: "Rollout (both layers)", removed: "removed",
    caption: (ablated) => `The row of “it”: its attention weights in each layer (each column sums to 1)${ablated ? ", with the edge removed" : ""}; the last column is the rollout: the share of each word in what reaches “it” through both layers.`,
    loading: "Loading the model…", failed: "The model could not be loaded.",
  },
};

// A probability with one decimal, but never "100.0%" or "0.0%" for what a softmax gives (never exactly 1 or 0).
const percent = (p, t) => {
  const text = (100 * p).toFixed(1);
  return text === "100.0" ? t.above : text === "0.0" ? t.below : t.percent(text);
};
const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children.filter((c) => c != null));
  return node;
};
let count = 0;

class LearnedWidget {
  constructor(root) {
    this.root = root;
    this.task = root.dataset.model;
    this.t = STRINGS[document.documentElement.lang.startsWith("en") ? "en" : "zh"];
    this.id = `qkv-lw-${++count}`;
    root.classList.add("qkv-lw");
    root.setAttribute("role", "region");
    root.setAttribute("aria-label", this.t.region[this.task]);
    this.model = null;
    this.waiting = []; // what the reader did before the model arrived: [key, action], applied once it has
    const first = root.dataset.first ? JSON.parse(root.dataset.first) : null;
    delete root.dataset.first; // read once: the page's DOM is the widget's
    const q = new URLSearchParams(location.search);
    const ownState = [this.task, `${this.task}-cut`, `${this.task}-layers`].some((name) => q.has(name));
    if (first && !ownState) {
      this.drawFirst(first);
      return;
    }
    root.replaceChildren(el("p", { className: "qkv-lw-note", textContent: this.t.loading }));
    this.load().then((model) => this.start(model), () => root.replaceChildren(el("p", { className: "qkv-lw-note", textContent: this.t.failed })));
  }

  /** The model, fetched once (again after a failure). */
  load() {
    this.loading ??= fetch(`learned-model-${this.task}.json`)
      .then((response) => { if (!response.ok) throw new Error(response.statusText); return response.json(); })
      .then((file) => decoded(file))
      .catch((error) => { this.loading = null; throw error; });
    return this.loading;
  }

  /** The reader's action `act`: now if the model is here, else once it has arrived (the last of each kind). */
  when(key, act) {
    if (this.model) return act();
    this.waiting = this.waiting.filter(([k]) => k !== key);
    this.waiting.push([key, act]);
    this.fetchModel();
  }

  /** Fetch the model for the first state's controls; they are busy until it is here. */
  fetchModel() {
    if (this.model || this.busy) return;
    this.busy = true;
    this.setBusy(true);
    this.load().then((model) => {
      this.busy = false;
      this.model = model;
      this.setBusy(false);
      const waiting = this.waiting;
      this.waiting = [];
      if (waiting.length) waiting.forEach(([, act]) => act());
      else this.result = this.computed(); // nothing to redraw: the first state is the model's
    }, () => {
      this.busy = false;
      this.setBusy(false);
      this.message.textContent = this.t.failed;
    });
  }

  setBusy(busy) {
    for (const node of [this.root, ...this.root.querySelectorAll("select, input")]) {
      if (busy) node.setAttribute("aria-busy", "true");
      else node.removeAttribute("aria-busy");
    }
  }

  // ---- the address: ?<task>=<sentence>&<task>-cut=<word index>&<task>-layers=1,2 ----

  readAddress() {
    const q = new URLSearchParams(location.search);
    const cut = q.get(`${this.task}-cut`);
    return {
      sentence: q.get(this.task) ?? this.model.sentences.article[0],
      cut: cut !== null && /^\d+$/.test(cut) ? Number(cut) : null,
      layers: ["1,2", "1", "2"].includes(q.get(`${this.task}-layers`)) ? q.get(`${this.task}-layers`) : "1,2",
    };
  }

  remember() {
    const url = new URL(location.href);
    url.searchParams.set(this.task, this.state.sentence);
    if (this.state.cut === null) url.searchParams.delete(`${this.task}-cut`);
    else url.searchParams.set(`${this.task}-cut`, String(this.state.cut));
    if (this.state.cut === null || this.state.layers === "1,2") url.searchParams.delete(`${this.task}-layers`);
    else url.searchParams.set(`${this.task}-layers`, this.state.layers);
    history.replaceState(history.state, "", url.href);
  }

  // ---- the controls ----

  select(slot, options) {
    const id = `${this.id}-${slot}`;
    const control = el("select", { id, className: "qkv-lw-select" });
    control.dataset.slot = slot;
    for (const option of options) {
      if (option.group) {
        const group = el("optgroup", { label: option.group });
        option.items.forEach((item) => group.append(el("option", { value: item.value, textContent: item.label })));
        control.append(group);
      } else {
        control.append(el("option", { value: option.value, textContent: option.label }));
      }
    }
    control.addEventListener("change", () => this.when("slots", () => this.fromSlots()));
    return el("label", { className: "qkv-lw-slot", htmlFor: id }, el("span", { textContent: this.t.slots[slot] }), control);
  }

  /** The first state, from the build's numbers: the model is fetched when the reader first reaches a control. */
  drawFirst(first) {
    this.outline = { sentences: first.sentences, options: { task: this.task } }; // all matchFrame and heldout read
    this.build(first.sentences);
    this.state = { sentence: first.sentence, cut: null, layers: "1,2" };
    this.input.value = first.sentence;
    const slots = matchFrame(this.outline, first.words);
    if (slots) this.showSlots(slots);
    const rows = first.rows;
    this.input.setAttribute("aria-invalid", "false");
    this.draw({
      words: first.words, it: first.it, status: heldout(this.outline, first.words), intact: first.answer, after: null, cut: null, cutLayers: [],
      columns: [...rows.slice(0, -1).map((row, l) => ({ name: this.t.layer(l + 1), key: String(l + 1), row })),
        { name: this.t.rollout, key: "rollout", row: rows[rows.length - 1] }],
    });
    const wake = (event) => { if (event.target.closest("select, input, label")) this.fetchModel(); };
    this.root.addEventListener("focusin", wake);
    this.root.addEventListener("pointerover", wake);
    this.root.addEventListener("pointerdown", wake);
    this.root.dataset.qkvReady = "";
  }

  start(model) {
    this.model = model;
    this.build(model.sentences);
    this.state = this.readAddress();
    this.input.value = this.state.sentence;
    this.update({}, { fromText: true, quiet: true });
    this.root.dataset.qkvReady = "";
  }

  /** The controls, the answer and the table's box, for the task's frames and word lists `s`. */
  build(s) {
    const t = this.t;
    this.nouns = s.nouns;
    const words = (list) => list.map((w) => ({ value: w, label: w || t.nothing }));
    const frameLabel = (f) => f.replace(/\{(\w+)\}/g, (_, n) => (n === "m" ? "" : "…")).replace(/\s+/g, " ");
    this.slotNames = this.task === "coreference"
      ? ["frame", "animal", "place", "adjective"]
      : ["prefix", "frame", "animal", "place", "object", "intensifier", "adjective", "after"];
    const options = {
      frame: s.frames.map((f, i) => ({ value: String(i), label: frameLabel(f) })),
      animal: words(s.nouns.animal), place: words(s.nouns.place), object: words(s.nouns.object ?? []),
      adjective: Object.keys(s.adjectives).map((kind) => ({ group: t.kinds[kind], items: words(s.adjectives[kind]) })),
      prefix: words(s.prefixes ?? []), intensifier: words(s.intensifiers ?? []), after: words(s.after_nouns ?? []),
    };
    this.slots = el("fieldset", { className: "qkv-lw-build" }, el("legend", { textContent: t.build }),
      ...this.slotNames.map((slot) => this.select(slot, options[slot])));
    this.input = el("input", { id: `${this.id}-text`, type: "text", className: "qkv-lw-text", spellcheck: false, autocomplete: "off" });
    this.input.setAttribute("autocapitalize", "off");
    this.input.setAttribute("aria-describedby", `${this.id}-message`);
    this.input.addEventListener("input", () => this.when("text", () => this.update({ sentence: this.input.value }, { fromText: true })));
    this.message = el("p", { id: `${this.id}-message`, className: "qkv-lw-message", role: "status" });
    this.status = el("p", { className: "qkv-lw-status" });
    this.answer = el("div", { className: "qkv-lw-answer", role: "status" });
    this.answer.setAttribute("aria-live", "polite");
    this.cutBox = el("input", { type: "checkbox", id: `${this.id}-cut` });
    this.cutWord = el("select", { id: `${this.id}-cut-word`, className: "qkv-lw-select" });
    this.cutWord.setAttribute("aria-label", t.remove);
    this.cutLayers = el("select", { id: `${this.id}-cut-layers`, className: "qkv-lw-select" },
      ...t.layers.map(([value, label]) => el("option", { value, textContent: label })));
    const changeCut = () => this.when("cut", () => this.update({ cut: this.cutBox.checked ? Number(this.cutWord.value) : null, layers: this.cutLayers.value }));
    this.cutBox.addEventListener("change", changeCut);
    this.cutWord.addEventListener("change", () => { this.cutBox.checked = true; changeCut(); });
    this.cutLayers.addEventListener("change", changeCut);
    const ablate = el("fieldset", { className: "qkv-lw-ablate" }, el("legend", { textContent: t.ablate }),
      el("label", { className: "qkv-lw-check", htmlFor: this.cutBox.id }, this.cutBox, el("span", { textContent: ` ${t.remove}` })),
      this.cutWord,
      el("label", { className: "qkv-lw-slot", htmlFor: this.cutLayers.id }, el("span", { textContent: t.layersLabel }), this.cutLayers));
    this.table = el("div", { className: "qkv-lw-table", tabIndex: 0 });
    this.root.replaceChildren(this.slots,
      el("label", { className: "qkv-lw-own", htmlFor: this.input.id }, el("span", { textContent: t.own }), this.input),
      this.message, this.status, this.answer, ablate, this.table);
  }

  /** The selects from a sentence of the task's frames: they follow what the reader typed. */
  showSlots(slots) {
    for (const control of this.slots.querySelectorAll("select")) {
      const value = slots[control.dataset.slot];
      if (value !== undefined) control.value = String(value);
    }
    this.markHeldOut();
  }

  /** Adjectives that would make a held-out sentence with the other slots as they are: marked so in the list. */
  markHeldOut() {
    const slots = this.currentSlots();
    const lists = this.model ?? this.outline; // the sentence lists: the model's, or the first state's until it is in
    for (const option of this.slots.querySelectorAll("[data-slot=adjective] option")) {
      option.label = option.value;
      if (heldout(lists, tokens(sentenceOf(lists, { ...slots, adjective: option.value }))) !== "train") option.label = `${option.value}${this.t.heldoutMark}`;
    }
  }

  currentSlots() {
    const slots = {};
    for (const control of this.slots.querySelectorAll("select")) slots[control.dataset.slot] = control.value;
    slots.frame = Number(slots.frame);
    return slots;
  }

  fromSlots() {
    const sentence = sentenceOf(this.model, this.currentSlots());
    this.input.value = sentence;
    this.update({ sentence, cut: null }, { fromText: false });
  }

  update(change, { fromText = false, quiet = false } = {}) {
    const before = this.state.sentence;
    Object.assign(this.state, change);
    if (change.sentence !== undefined && change.sentence !== before && !("cut" in change)) this.state.cut = null;
    const words = tokens(this.state.sentence);
    if (fromText) {
      const slots = matchFrame(this.model, words);
      if (slots) this.showSlots(slots);
    } else {
      this.markHeldOut();
    }
    const result = this.computed();
    if (result.cut === undefined) this.state.cut = null;
    this.result = result; // for the tests: every row the page computed
    if (!quiet) this.remember(); // a page opened without a state keeps its address
    this.render(result);
  }

  /** What the model gives for the state's sentence and removed edge (model.js run). */
  computed() {
    const layers = this.state.layers.split(",").map(Number);
    return run(this.model, this.state.sentence, { cut: this.state.cut, layers });
  }

  render(result) {
    const t = this.t;
    this.input.setAttribute("aria-invalid", String(Boolean(result.error)));
    this.root.classList.toggle("qkv-lw-invalid", Boolean(result.error));
    if (result.error) {
      const known = this.model.vocabulary.length - 1;
      this.message.textContent = result.error === "unknown" ? t.unknown(result.unknown, known) : t.errors[result.error](result);
      this.status.textContent = "";
      this.answer.replaceChildren();
      this.table.replaceChildren();
      this.cutWord.replaceChildren();
      return;
    }
    const shown = result.ablated ?? result.intact;
    const it = result.encoded.it;
    const columns = shown.layers.map((layer, l) => ({ name: t.layer(l + 1), key: String(l + 1), row: layer.weights[it] }));
    columns.push({ name: t.rollout, key: "rollout", row: (result.ablated ? rolloutOf(shown) : result.rollout)[shown.layers.length - 1][it] });
    this.draw({ words: result.words, it, status: heldout(this.model, result.words), intact: resolve(result.intact),
      after: result.ablated ? resolve(result.ablated) : null, cut: result.cut, cutLayers: result.cutLayers ?? [], columns });
  }

  /**
   * A sentence's view: its words, the position of "it", what training saw of it, the answer (and the answer with
   * the edge removed, `after`), the removed edge, and the columns of "it"'s row ({ name, key, row }).
   */
  draw(view) {
    const t = this.t;
    this.message.textContent = "";
    this.status.textContent = t.status[view.status];
    this.status.dataset.heldout = view.status;
    const intact = view.intact;
    const line = el("p", { className: "qkv-lw-verdict", textContent: t.answer(intact.word, percent(intact.probability, t)) });
    line.dataset.word = intact.word;
    line.dataset.probability = String(intact.probability);
    const lines = [line];
    if (view.after) {
      const after = view.after;
      const changed = el("p", { className: "qkv-lw-verdict qkv-lw-after", textContent: t.ablated(after.word, percent(after.probability, t), after.word === intact.word) });
      changed.dataset.word = after.word;
      changed.dataset.probability = String(after.probability);
      lines.push(changed);
    }
    this.answer.replaceChildren(...lines);
    // the words "it" may lose its edge to: every word but "it"
    const it = view.it;
    this.cutWord.replaceChildren(...view.words.flatMap((w, i) => (i === it ? [] : [el("option", { value: String(i), textContent: `${w} (${i + 1})` })])));
    const nouns = this.nounPositions(view.words);
    const firstOther = nouns.find((i) => i !== it) ?? -1;
    this.cutWord.value = String(this.state.cut ?? (firstOther >= 0 ? firstOther : it === 0 ? 1 : 0));
    this.cutBox.checked = this.state.cut !== null;
    this.cutLayers.value = this.state.layers;
    this.drawTable(view);
  }

  /** Where the sentence's nouns are: the words "it" may mean. */
  nounPositions(words) {
    const all = Object.values(this.nouns).flat();
    return words.flatMap((w, i) => (all.includes(w) ? [i] : []));
  }

  drawTable(view) {
    const t = this.t;
    const { it, columns } = view;
    const nouns = this.nounPositions(view.words);
    const head = el("tr", {}, el("th", { scope: "col", textContent: t.word }), ...columns.map((c) => el("th", { scope: "col", textContent: c.name })));
    const rows = view.words.map((word, j) => {
      const cells = columns.map((c) => {
        const w = c.row[j];
        const cell = el("td", { className: "qkv-lw-heat", textContent: w > 0 && w < 0.005 ? "<0.01" : w.toFixed(2) });
        cell.style.setProperty("--w", String(w));
        cell.dataset.column = c.key;
        cell.dataset.value = String(w);
        const cutHere = view.after && j === view.cut && c.key !== "rollout" && view.cutLayers.includes(Number(c.key));
        if (cutHere) {
          cell.classList.add("qkv-lw-removed");
          cell.append(el("span", { className: "qkv-lw-sr", textContent: ` (${t.removed})` }));
        }
        return cell;
      });
      const tr = el("tr", {}, el("th", { scope: "row", textContent: word }), ...cells);
      if (j === it) tr.className = "qkv-lw-it";
      if (nouns.includes(j)) tr.classList.add("qkv-lw-candidate");
      return tr;
    });
    this.table.replaceChildren(el("table", {}, el("caption", { textContent: t.caption(Boolean(view.after)) }),
      el("thead", {}, head), el("tbody", {}, ...rows)));
  }
}

const rolloutOf = (pass) => rolloutWeights(pass.layers.map((l) => l.weights));

/** The widgets of `roots`, drawn once their stylesheet is in (unstyled, their selects would reach past a phone's edge). */
export function mountAll(roots) {
  const css = new URL("../../stylesheets/learned.css", import.meta.url).href;
  const styled = document.querySelector(`link[href="${css}"]`) ? Promise.resolve() : new Promise((resolve) => {
    const link = el("link", { rel: "stylesheet", href: css });
    link.addEventListener("load", resolve);
    link.addEventListener("error", resolve); // drawn without it: the numbers still matter more than the looks
    document.head.append(link);
  });
  return styled.then(() => {
    for (const root of roots) if (!root.dataset.qkvMounted) { root.dataset.qkvMounted = ""; root.qkvWidget = new LearnedWidget(root); }
  });
}
