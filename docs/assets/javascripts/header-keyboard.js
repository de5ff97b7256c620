// The header by keyboard, on a phone as on a desktop (Material's markup it relies on is listed in
// src/qkv_site/builder/compat.py, MATERIAL_MARKUP):
// 1. The drawer's button (a <label> for Material's hidden checkbox #__drawer) is a tab stop that Enter
//    and Space press; it says whether the drawer is open. Opened from the keyboard, the drawer takes
//    the focus; Escape closes it and gives the focus back to the button.
// 2. Only what the drawer shows is a tab stop: a closed drawer is inert, and an open one shows one
//    level of the navigation at a time (a section slides over the level above it, the page's contents
//    over the section), so the links of the other levels, covered or off to the side, are taken out
//    of the Tab order. The labels that go a level down or back up are tab stops that Enter and Space
//    press, and the focus follows to the level they show.
// 3. The colour-scheme toggle: Tab goes to the radio of the scheme in use (in the dark scheme it went
//    to a radio whose icon is hidden, so the focus could not be seen), and Space switches the scheme,
//    as Enter does (nothing happened).
// 4. The search results' scroll box is a tab stop only while the search is open and shows results:
//    empty or closed, it was a stop that showed nothing.
(function () {
  var english = document.documentElement.lang === "en";
  var words = english ? { menu: "Navigation menu" } : { menu: "导航菜单" };
  var DRAWER_WIDTHS = "(max-width: 76.234375em)"; // Material's own breakpoint for the drawer

  function pressed(event) {
    return (event.key === "Enter" || event.key === " ") && !event.altKey && !event.ctrlKey && !event.metaKey;
  }

  // ---- 1 and 2: the drawer ----
  var toggle = document.getElementById("__drawer");
  var button = document.querySelector('label.md-header__button[for="__drawer"]');
  var drawer = document.querySelector(".md-sidebar--primary");
  var top = drawer && drawer.querySelector("nav.md-nav--primary");
  if (toggle && button && drawer && top) {
    var narrow = window.matchMedia(DRAWER_WIDTHS);
    if (!drawer.id) drawer.id = "qkv-drawer";
    button.tabIndex = 0;
    button.setAttribute("role", "button");
    button.setAttribute("aria-label", words.menu);
    button.setAttribute("aria-controls", drawer.id);

    // A level of the drawer: the top one, or a nav that a checkbox of Material's (a section, the
    // page's contents) slides in. `levelOf` is the level an element is shown in.
    var toggleOf = function (nav) {
      return nav.parentElement.querySelector(":scope > input.md-nav__toggle");
    };
    var levelOf = function (node) {
      for (var nav = node.closest("nav.md-nav"); nav; nav = nav.parentElement.closest("nav.md-nav")) {
        if (nav === top || toggleOf(nav)) return nav;
      }
      return top;
    };
    var shownLevel = function () { // the deepest level whose checkbox, and each above it, is checked
      var level = top;
      drawer.querySelectorAll("input.md-nav__toggle:checked").forEach(function (box) {
        var nav = box.parentElement.querySelector(":scope > nav.md-nav");
        if (nav && levelOf(box.parentElement) === level) level = nav;
      });
      return level;
    };
    // What can be a stop: links, and the labels that open a section or the contents or go back up.
    var STOPS = 'a[href], label.md-nav__link[for^="__nav"], label[for="__toc"], label.md-nav__title[for^="__nav"]';
    var stops = function (level) {
      return Array.prototype.filter.call(drawer.querySelectorAll(STOPS), function (stop) {
        return !level || levelOf(stop) === level;
      });
    };
    var sync = function () {
      var open = toggle.checked;
      button.setAttribute("aria-expanded", String(open));
      drawer.inert = narrow.matches && !open;
      var level = shownLevel();
      // a level below the one shown is off to the side: inert, with the list that scrolls it (Chromium
      // makes a scroll box a stop of its own once nothing in it is one); a level above is covered:
      // its own links and labels are no stops
      drawer.querySelectorAll("input.md-nav__toggle + label + nav.md-nav, input.md-nav__toggle ~ nav.md-nav").forEach(function (nav) {
        nav.inert = narrow.matches && nav !== level && !nav.contains(level);
      });
      stops().forEach(function (stop) {
        if (!("qkvTabindex" in stop.dataset)) stop.dataset.qkvTabindex = stop.getAttribute("tabindex") || "";
        var own = stop.dataset.qkvTabindex;
        if (narrow.matches && levelOf(stop) !== level) stop.tabIndex = -1;
        else if (narrow.matches && stop.tagName === "LABEL") stop.tabIndex = 0;
        else if (own) stop.setAttribute("tabindex", own);
        else stop.removeAttribute("tabindex");
      });
    };
    var focusShown = function () {
      var first = stops(shownLevel())[0];
      if (first) first.focus();
    };
    // Material opens and closes the drawer and its levels by clicking their checkboxes: a change event each time.
    toggle.addEventListener("change", sync);
    drawer.addEventListener("change", sync);
    narrow.addEventListener("change", sync);
    sync();
    button.addEventListener("keydown", function (event) {
      if (!pressed(event)) return;
      event.preventDefault();
      event.stopPropagation(); // Material's own Enter on a focused label would press it a second time
      toggle.click();
      if (toggle.checked) focusShown();
    });
    drawer.addEventListener("keydown", function (event) {
      var label = event.target instanceof Element && event.target.closest("label[for]");
      if (!label || !pressed(event) || !narrow.matches) return;
      event.preventDefault();
      event.stopPropagation();
      label.click(); // the level it opens or goes back to is shown: the focus goes there
      focusShown();
    });
    drawer.addEventListener("focusout", function (event) { // Tab past its last stop: the drawer closes
      var next = event.relatedTarget;
      if (toggle.checked && narrow.matches && next && !drawer.contains(next) && next !== button) toggle.click();
    });
    document.addEventListener("keydown", function (event) {
      if (event.key !== "Escape" || !toggle.checked || !narrow.matches) return;
      if (!drawer.contains(document.activeElement) && document.activeElement !== button) return;
      toggle.click();
      button.focus();
    });
  }

  // ---- 3: the colour-scheme toggle ----
  // Material shows the icon (the label) after the radio of the scheme in use and draws the focus ring
  // on the label after the focused radio, but checks no radio: Tab then went to the first one, which
  // in the dark scheme is not the one in use, and the ring went on a hidden label. The radio of the
  // scheme in use is kept checked, so that Tab goes to it; Space goes on to the next scheme.
  var palette = document.querySelector('form[data-md-component="palette"]');
  if (palette) {
    var options = Array.prototype.slice.call(palette.querySelectorAll("input.md-option"));
    var inUse = function () {
      return options.findIndex(function (option) {
        return option.nextElementSibling instanceof HTMLLabelElement && !option.nextElementSibling.hidden;
      });
    };
    var check = function () {
      var at = inUse();
      if (at >= 0 && !options[at].checked) options[at].checked = true;
    };
    new MutationObserver(check).observe(palette, { subtree: true, attributes: true, attributeFilter: ["hidden"] });
    check();
    palette.addEventListener("keydown", function (event) {
      if (event.key !== " " || options.indexOf(event.target) < 0 || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      var next = options[(inUse() + 1) % options.length];
      next.click(); // the change Material listens for
      next.focus();
    });
  }

  // ---- 4: the search results' scroll box ----
  // Material gives it tabindex="0", so that the keyboard can go from the query to the results (its
  // arrow keys then move between them): a stop only while the search is open and has results.
  var search = document.getElementById("__search");
  var results = document.querySelector(".md-search__scrollwrap");
  var list = results && results.querySelector(".md-search-result__list");
  if (search && results && list) {
    var mark = function () {
      results.tabIndex = search.checked && list.children.length ? 0 : -1;
    };
    search.addEventListener("change", mark);
    new MutationObserver(mark).observe(list, { childList: true });
    mark();
  }
})();
