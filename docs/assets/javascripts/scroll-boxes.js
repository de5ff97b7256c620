// A box that scrolls sideways (a notebook code cell with a long line, a table wider than the
// column) must be reachable by keyboard to be scrolled (WCAG 2.1.1; axe: scrollable-region-focusable).
// Material does this for its own code blocks; here the same for the notebook's cells and for tables
// and for the notebook's wide display formulas (Material wraps tables in .md-typeset__scrollwrap at start-up).
(function () {
  function update() {
    document.querySelectorAll(".jupyter-wrapper .highlight-ipynb pre, .jupyter-wrapper div.arithmatex, .md-typeset__scrollwrap").forEach(function (box) {
      if (box.scrollWidth > box.clientWidth) box.tabIndex = 0;
      else box.removeAttribute("tabindex");
    });
  }
  window.addEventListener("load", function () {
    update();
  });
  window.addEventListener("resize", update);
})();
