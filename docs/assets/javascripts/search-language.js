// Material builds one search index for the whole site, so a search on an English page also lists
// the Chinese pages (and the other way round). Show only the results in the page's language.
(function () {
  var config = JSON.parse(document.getElementById("__config").textContent);
  var root = new URL(config.base, location.href).pathname; // the site root, "/" or "/<repo>/"
  var english = document.documentElement.lang === "en";

  function isEnglish(link) {
    return new URL(link.href, location.href).pathname.startsWith(root + "en/");
  }

  function filter(list) {
    list.querySelectorAll(".md-search-result__item").forEach(function (item) {
      var link = item.querySelector("a[href]");
      item.hidden = Boolean(link) && isEnglish(link) !== english;
    });
  }

  var list = document.querySelector(".md-search-result__list");
  if (list) new MutationObserver(function () { filter(list); }).observe(list, { childList: true });
})();
