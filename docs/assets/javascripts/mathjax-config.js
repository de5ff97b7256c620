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
    // Typeset only what is marked as math. Every element with a class is skipped unless its class
    // is listed in processHtmlClass; an element without a class follows its parent. (".*|" would
    // also match the empty class, so the classless <p> of a notebook's markdown cell was skipped.)
    ignoreHtmlClass: ".+",
    // .md-ellipsis: the table of contents repeats headings such as "Step 3: scale (divide by
    // \(\sqrt{d_k}\))" as text; typeset them there too instead of showing raw TeX.
    processHtmlClass: "arithmatex|jp-RenderedMarkdown|jp-MarkdownOutput|md-ellipsis",
  },
};
