// Typeset TeX with MathJax 3: SVG that takes the text colour, plus MathML for screen readers.
//
//   node typeset.cjs <MathJax's es5 directory>
//   stdin:  {"tex": "\\sqrt{d_k}", "display": false}     one JSON object per line
//   stdout: {"html": "<mjx-container …>"}  or  {"error": "Missing close brace"}, one line each
//
// One process serves a whole build: MathJax starts once (about a second), then typesets a formula
// in a few milliseconds. TeX that MathJax cannot read is an error, never red text on a page.
"use strict";

const path = require("path");
const readline = require("readline");

const ES5 = path.resolve(process.argv[2]);

global.MathJax = {
  loader: {
    paths: { mathjax: ES5 },
    require: require,
    load: ["adaptors/liteDOM", "input/tex-base", "[tex]/ams", "[tex]/newcommand", "[tex]/configmacros",
           "output/svg", "a11y/assistive-mml"],
  },
  tex: {
    // No "noundefined" package: an unknown command is an error.
    packages: ["base", "ams", "newcommand", "configmacros"],
    formatError: (jax, error) => { throw error; },
  },
  // The glyphs as paths inside each formula: no font files, and every formula stands on its own.
  svg: { fontCache: "local" },
  // The MathML beside the SVG, visually hidden; the SVG itself is aria-hidden.
  options: { enableAssistiveMml: true },
  startup: { typeset: false },
};

require(path.join(ES5, "startup.js"));

MathJax.startup.promise.then(() => {
  const adaptor = MathJax.startup.adaptor;
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  lines.on("line", (line) => {
    let reply;
    try {
      const request = JSON.parse(line);
      reply = { html: adaptor.outerHTML(MathJax.tex2svg(request.tex, { display: !!request.display })) };
    } catch (error) {
      reply = { error: String(error && error.message ? error.message : error) };
    }
    process.stdout.write(JSON.stringify(reply) + "\n");
  });
}).catch((error) => {
  process.stderr.write(`MathJax did not start: ${error}\n`);
  process.exit(1);
});
