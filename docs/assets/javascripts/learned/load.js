// On a page with a learned-attention widget (<div class="qkv-learned-widget" data-model="…">), load it;
// on every other page this is all that runs.
const roots = document.querySelectorAll(".qkv-learned-widget");
if (roots.length) import("./widget.js").then((widget) => widget.mountAll(roots));
