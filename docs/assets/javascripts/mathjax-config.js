// MathJax 3, served from this site. arithmatex wraps the pages' math in .arithmatex;
// notebook markdown cells (rendered by mkdocs-jupyter) keep Jupyter's $…$ / $$…$$.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"], ["$", "$"]],
    displayMath: [["\\[", "\\]"], ["$$", "$$"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex|jp-RenderedMarkdown|jp-MarkdownOutput",
  },
};
