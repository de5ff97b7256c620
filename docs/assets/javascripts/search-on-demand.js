// Search starts when the reader goes to search, not on every page load.
//
// Material (9.8.2) asks for the search index (an XMLHttpRequest for search/search_index.json) and
// starts its search worker (which loads lunr and its languages) as soon as a page loads: about
// 45 KB gzip on every page, used only by a reader who searches. Loaded before Material's bundle
// (overrides/main.html), this holds both back until the reader comes to the search box (pointer
// over it, focus in it, its toggle or keyboard shortcut), or arrives from a search result (?h=…,
// which Material highlights). Material sees an ordinary worker and request, only later.
(function () {
  "use strict";
  var NativeWorker = window.Worker;
  var send = XMLHttpRequest.prototype.send;
  var open = XMLHttpRequest.prototype.open;
  var started = false;
  var waiting = [];

  function start() {
    if (started) return;
    started = true;
    waiting.splice(0).forEach(function (go) { go(); });
  }
  function whenStarted(go) {
    if (started) go(); else waiting.push(go);
  }

  XMLHttpRequest.prototype.open = function (method, url) {
    this.qkvSearchIndex = /\/search\/search_index\.json(?:$|[?#])/.test(String(url));
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    var request = this, args = arguments;
    if (!request.qkvSearchIndex) return send.apply(request, args);
    whenStarted(function () { send.apply(request, args); });
  };

  if (NativeWorker) {
    window.Worker = function (url, options) {
      if (!/\/workers\/search\.[^/]*\.js(?:$|[?#])/.test(String(url))) return new NativeWorker(url, options);
      // A stand-in until the search starts: it keeps Material's messages and passes the worker's on.
      var standIn = new EventTarget();
      var queued = [];
      var worker = null;
      standIn.postMessage = function (message) {
        if (worker) worker.postMessage(message); else queued.push(message);
      };
      standIn.terminate = function () {
        if (worker) worker.terminate();
        waiting = waiting.filter(function (go) { return go !== begin; });
      };
      function begin() {
        worker = new NativeWorker(url, options);
        worker.addEventListener("message", function (event) {
          standIn.dispatchEvent(new MessageEvent("message", { data: event.data }));
        });
        worker.addEventListener("error", function () { standIn.dispatchEvent(new Event("error")); });
        queued.splice(0).forEach(function (message) { worker.postMessage(message); });
      }
      whenStarted(begin);
      return standIn;
    };
    window.Worker.prototype = NativeWorker.prototype;
  }

  if (/[?&]h=/.test(location.search)) start();
  function onSearch(event) {
    var target = event.target;
    if (target && target.closest && target.closest(".md-search, label[for='__search']")) start();
  }
  document.addEventListener("pointerover", onSearch, true);
  document.addEventListener("focusin", onSearch, true);
  document.addEventListener("touchstart", onSearch, { capture: true, passive: true });
  document.addEventListener("change", function (event) {
    if (event.target && event.target.id === "__search") start();
  }, true);
  document.addEventListener("keydown", function (event) {
    // Material's shortcuts that open the search: f, s and /.
    if (!event.ctrlKey && !event.metaKey && !event.altKey && /^[fs/]$/.test(event.key)) start();
  }, true);
})();
