// A box that scrolls sideways (a notebook code cell with a long line, a table wider than the
// column) must be reachable by keyboard to be scrolled (WCAG 2.1.1; axe: scrollable-region-focusable).
// Material does this for its own code blocks; here the same for the notebook's cells and for tables
// (Material wraps tables in .md-typeset__scrollwrap at start-up; formulas change widths when typeset).
(function () {
  function update() {
    document.querySelectorAll(".jupyter-wrapper .highlight-ipynb pre, .md-typeset__scrollwrap").forEach(function (box) {
      if (box.scrollWidth > box.clientWidth) box.tabIndex = 0;
      else box.removeAttribute("tabindex");
    });
  }
  window.addEventListener("load", function () {
    update();
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) MathJax.startup.promise.then(update);
  });
  window.addEventListener("resize", update);
})();
