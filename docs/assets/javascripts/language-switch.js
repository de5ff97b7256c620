// The language selector (a.md-select__link[hreflang]) of mkdocs-static-i18n links each page to
// its counterpart in the other language. Two fixes around it:

// 1. Keep the reader's place. The selector drops the "#section" part of the URL; heading ids are
//    identical in docs/zh and docs/en by design ({ #same-id }), so the section the reader is in goes
//    along as the hash. Which section that is comes from where the headings are on the screen, not
//    from the address: Material's tracking writes a heading there only once it has scrolled up to the
//    header, so with the reader's heading 100-200 px down the screen the address still named the
//    section before it. The reader is in the last section whose heading is in the top third of the
//    window or above it; an anchor the address names (a note, an exercise, a folded figure code)
//    counts as a heading while it is there too. At the top of the page there is no hash.
//    The query goes along too: the playground keeps the reader's numbers there (?p=…&x=…).
var READING_LINE = 1 / 3; // of the window's height, from its top

function readersPlace() {
  var article = document.querySelector("article");
  if (!article || window.scrollY <= 0) return "";
  var marks = Array.prototype.slice.call(article.querySelectorAll("h2[id], h3[id], h4[id], h5[id], h6[id]"));
  var named = location.hash.length > 1 && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (named && article.contains(named) && marks.indexOf(named) < 0) marks.push(named);
  var line = window.innerHeight * READING_LINE;
  var place = null;
  marks.forEach(function (mark) {
    var top = mark.getBoundingClientRect().top;
    if (top <= line && mark.getClientRects().length && (!place || top >= place.top)) place = { id: mark.id, top: top };
  });
  return place ? "#" + encodeURIComponent(place.id) : "";
}

function carryHash(event) {
  var link = event.target instanceof Element && event.target.closest("a.md-select__link[hreflang]");
  if (!link) return;
  if (!link.dataset.page) link.dataset.page = link.getAttribute("href"); // Material's own href
  var url = new URL(link.dataset.page, location.href);
  url.search = location.search; // "" when there is none
  url.hash = readersPlace(); // "" at the top of the page
  link.href = url.href; // set before the browser follows the link
}
// Capture phase: runs before the default action of a click, a keyboard "Enter" or a middle click.
document.addEventListener("click", carryHash, true);
document.addEventListener("auxclick", carryHash, true);

// 2. Material reads the <link rel="alternate" hreflang> tags at DOMContentLoaded, takes each one
//    for a language root and fetches "sitemap.xml" next to it to map pages between languages.
//    mkdocs-static-i18n points them at this page's counterparts, so every page view requested two
//    missing …/<page>/sitemap.xml (404) and Material then hijacked the selector's clicks (dropping
//    the hash). Hide the tags while Material looks for them; put them back for search engines.
var alternates = document.querySelectorAll('link[rel="alternate"][hreflang]');
alternates.forEach(function (tag) { tag.remove(); });
document.addEventListener("DOMContentLoaded", function () { // after Material's own listener
  alternates.forEach(function (tag) { document.head.appendChild(tag); });
});
