// A link to a folded block unfolds it. A figure's caption ends with a link to the code that drew
// the figure, folded in a closed <details> under it. Material opens such a block when the address's
// fragment changes, but it reads the fragment from the address bar once the jump is over; with
// anchor tracking on (navigation.tracking), the jump's own scroll can replace that fragment with the
// heading in view before Material reads it, and on a slow device it does: the block stays closed.
// Here the block is opened from the link itself, as the reader follows it, and, for a fragment
// reached another way (typed, Back, Forward), from the URL the hashchange event carries.
(function () {
  function unfold(hash) {
    if (hash.length < 2) return;
    var target = document.getElementById(decodeURIComponent(hash.slice(1)));
    for (var block = target && target.closest("details"); block; block = block.parentElement.closest("details")) {
      block.open = true; // every enclosing block, from the innermost out
    }
  }
  function onThisPage(link) {
    return link.origin === location.origin && link.pathname === location.pathname && link.search === location.search;
  }
  document.addEventListener("click", function (event) {
    var link = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (!link || event.defaultPrevented || event.button !== 0) return;
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return; // a new tab or window
    if (onThisPage(link)) unfold(link.hash);
  });
  window.addEventListener("hashchange", function (event) {
    unfold(new URL(event.newURL).hash);
  });
})();
