// On a page with an attention playground (an element of class "qkv-playground"), load its stylesheet
// and then the playground, which draws itself styled; on every other page this is all that runs. The
// stylesheet goes where mkdocs.yml's extra_css would put it, before the site's own (extra.css, then
// print.css, whose rules for paper override it).
// A small playground inside an article page (data-compact) that carries an "open" button waits for the
// reader: the button shows (data-qkv-waiting), and the playground loads when it is pressed.
function load() {
  const href = new URL("../../stylesheets/playground.css", import.meta.url).href;
  const sheets = [...document.querySelectorAll('link[rel="stylesheet"]')];
  let sheet = sheets.find((link) => link.href === href);
  if (!sheet) {
    sheet = Object.assign(document.createElement("link"), { rel: "stylesheet", href });
    const site = sheets.find((link) => link.href === new URL("../../stylesheets/extra.css", import.meta.url).href);
    if (site) site.before(sheet); else document.head.append(sheet);
  }
  const loaded = sheet.sheet ? Promise.resolve() : new Promise((resolve) => {
    sheet.addEventListener("load", resolve, { once: true });
    sheet.addEventListener("error", resolve, { once: true });  // the playground still works unstyled
  });
  return loaded.then(() => import("./playground.js"));
}

const roots = [...document.querySelectorAll(".qkv-playground")];
const waiting = roots.filter((root) => root.hasAttribute("data-compact") && root.querySelector("button.qkv-pg-open"));
if (waiting.length < roots.length) load();
for (const root of waiting) {
  const open = root.querySelector("button.qkv-pg-open");
  root.setAttribute("data-qkv-waiting", "");
  open.hidden = false;
  open.addEventListener("click", () => {
    open.disabled = true;
    root.setAttribute("aria-busy", "true");
    root.removeAttribute("data-qkv-waiting");
    load().then(() => {
      root.removeAttribute("aria-busy");
      root.querySelector("input[data-matrix]")?.focus();  // the keyboard goes on where the button was
    }, () => { root.removeAttribute("aria-busy"); open.disabled = false; root.setAttribute("data-qkv-waiting", ""); });
  }, { once: false });
}
