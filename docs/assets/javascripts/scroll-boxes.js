// A box that scrolls sideways (a notebook code cell with a long line, a table wider than the
// column) must be reachable by keyboard to be scrolled (WCAG 2.1.1; axe: scrollable-region-focusable).
// Material does this for its own code blocks; here the same for the notebook's cells and for tables
// and for the notebook's wide display formulas (Material wraps tables in .md-typeset__scrollwrap at start-up).
// Each box is watched for size changes, not only at load: one inside a closed <details> has no width
// until it is opened, and a phone turned sideways changes which boxes overflow.
(function () {
  var BOXES = ".jupyter-wrapper .highlight-ipynb pre, .jupyter-wrapper div.arithmatex, .md-typeset__scrollwrap";
  function mark(box) {
    if (box.scrollWidth > box.clientWidth) box.tabIndex = 0;
    else box.removeAttribute("tabindex");
  }
  function update() {
    document.querySelectorAll(BOXES).forEach(mark);
  }
  window.addEventListener("load", function () {
    update();
    if (!window.ResizeObserver) return;
    var observer = new ResizeObserver(function (entries) {
      entries.forEach(function (entry) { mark(entry.target.matches(BOXES) ? entry.target : entry.target.parentElement); });
    });
    document.querySelectorAll(BOXES).forEach(function (box) {
      observer.observe(box);
      if (box.firstElementChild) observer.observe(box.firstElementChild); // what it holds grows (fonts, a wider table)
    });
  });
  window.addEventListener("resize", update);
})();
