// The language selector (a.md-select__link[hreflang]) of mkdocs-static-i18n links each page to
// its counterpart in the other language. Two fixes around it:

// 1. Keep the reader's place. The selector drops the "#section" part of the URL; heading ids are
//    identical in docs/zh and docs/en by design ({ #same-id }), so carry the hash over on click.
//    The query goes along too: the playground keeps the reader's numbers there (?p=…&x=…).
function carryHash(event) {
  var link = event.target instanceof Element && event.target.closest("a.md-select__link[hreflang]");
  if (!link) return;
  if (!link.dataset.page) link.dataset.page = link.getAttribute("href"); // Material's own href
  var url = new URL(link.dataset.page, location.href);
  url.search = location.search; // "" when there is none
  url.hash = location.hash; // "" when there is none (e.g. after going back to the top)
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
