// Open a figure large: click, tap, Enter or Space on a figure shows it in a full-window dialog, in
// the variant of the current colour scheme: on a wide screen as large as fits the window, on a
// phone at least 56rem wide (the reader pans around it). The close button sits in a bar of its
// own above the picture, a full-size target that covers none of it. Escape, the close button or a
// click on the picture closes it and gives focus back.
(function () {
  var english = document.documentElement.lang === "en";
  var words = english
    ? { open: "Enlarge figure: ", close: "Close", dialog: "Figure, enlarged" }
    : { open: "放大查看图：", close: "关闭", dialog: "放大的图" };

  var dialog = document.createElement("dialog");
  dialog.className = "qkv-zoom";
  dialog.setAttribute("aria-label", words.dialog);
  var close = document.createElement("button");
  close.type = "button";
  close.className = "qkv-zoom__close md-button";
  close.textContent = words.close;
  var picture = document.createElement("img"); // in the dialog from the first opening on (an img
  picture.className = "qkv-zoom__image"; //       without a picture would count as a broken image)
  // The picture's shape (width / height), so that CSS can fit it in the window. It is taken from the
  // figure on the page as the dialog opens, before it is drawn: from the file when it has arrived,
  // else from the size the page gives the figure (its width and height attributes); and again when
  // the picture loads.
  function fit(image) {
    var width = image.naturalWidth || Number(image.getAttribute("width"));
    var height = image.naturalHeight || Number(image.getAttribute("height"));
    if (width && height) dialog.style.setProperty("--qkv-zoom-ratio", String(width / height));
  }
  picture.addEventListener("load", function () { fit(picture); });
  var bar = document.createElement("div");
  bar.className = "qkv-zoom__bar";
  bar.append(close);
  dialog.append(bar);
  document.body.appendChild(dialog);

  var opener = null;
  function open(figure) {
    opener = figure;
    fit(figure);
    picture.src = figure.currentSrc || figure.src;
    picture.alt = figure.alt;
    if (!picture.parentNode) dialog.append(picture);
    dialog.showModal();
    dialog.scrollTo(0, 0);
    close.focus();
  }
  close.addEventListener("click", function () { dialog.close(); });
  picture.addEventListener("click", function () { dialog.close(); });
  dialog.addEventListener("click", function (event) { if (event.target === dialog) dialog.close(); });
  dialog.addEventListener("close", function () {
    if (opener) opener.focus();
    opener = null;
  });

  document.querySelectorAll("article figure img").forEach(function (figure) {
    figure.classList.add("qkv-zoomable");
    figure.tabIndex = 0;
    figure.setAttribute("role", "button");
    figure.setAttribute("aria-label", words.open + figure.alt);
    figure.addEventListener("click", function () { open(figure); });
    figure.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        open(figure);
      }
    });
  });
})();
