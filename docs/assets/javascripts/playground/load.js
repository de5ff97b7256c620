// On a page with an attention playground (an element of class "qkv-playground"), load its stylesheet
// and then the playground, which draws itself styled; on every other page this is all that runs. The
// stylesheet goes where mkdocs.yml's extra_css would put it, before the site's own (extra.css, then
// print.css, whose rules for paper override it).
if (document.querySelector(".qkv-playground")) {
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
  loaded.then(() => import("./playground.js"));
}
