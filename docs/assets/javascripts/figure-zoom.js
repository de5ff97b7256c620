// Open a figure large: click, tap, Enter or Space on a figure shows it in a full-window dialog, in
// the variant of the current colour scheme, first as large as the whole figure fits the window. On
// a narrow screen that is not much larger than on the page, so there the picture can be enlarged
// further (at least 56rem wide; the reader pans around it) and back: by a tap on the picture, which
// keeps the point tapped under the finger, or by the "Enlarge" button. The bar above the picture
// holds that button and the close button, full-size targets that cover none of the picture. Escape,
// the close button, a click on the backdrop or (on a wide screen) on the picture closes it and gives
// focus back to the figure.
(function () {
  var english = document.documentElement.lang === "en";
  var words = english
    ? { open: "Enlarge figure: ", close: "Close", dialog: "Figure, enlarged", enlarge: "Enlarge", fit: "Fit to screen" }
    : { open: "放大查看图：", close: "关闭", dialog: "放大的图", enlarge: "再放大", fit: "适应屏幕" };
  var WIDE = window.matchMedia("(min-width: 60em)"); // as the stylesheet: there the fitted figure is the largest view

  var dialog = document.createElement("dialog");
  dialog.className = "qkv-zoom";
  dialog.setAttribute("aria-label", words.dialog);
  function button(className, text) {
    var made = document.createElement("button");
    made.type = "button";
    made.className = className + " md-button";
    made.textContent = text;
    return made;
  }
  var enlarge = button("qkv-zoom__enlarge", words.enlarge);
  enlarge.setAttribute("aria-pressed", "false");
  var close = button("qkv-zoom__close", words.close);
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
  bar.append(enlarge, close);
  dialog.append(bar);
  document.body.appendChild(dialog);

  // Enlarged or fitted; `x`, `y` (in the window) is the point that stays where it is, else the middle.
  function enlarged(on, x, y) {
    var before = picture.getBoundingClientRect();
    if (x === undefined) { x = before.left + before.width / 2; y = before.top + before.height / 2; }
    var fx = (x - before.left) / before.width, fy = (y - before.top) / before.height;
    dialog.toggleAttribute("data-enlarged", on);
    enlarge.setAttribute("aria-pressed", String(on));
    enlarge.textContent = on ? words.fit : words.enlarge;
    var after = picture.getBoundingClientRect();
    dialog.scrollBy(after.left + fx * after.width - x, after.top + fy * after.height - y);
  }

  var opener = null;
  function open(figure) {
    opener = figure;
    fit(figure);
    picture.src = figure.currentSrc || figure.src;
    picture.alt = figure.alt;
    if (!picture.parentNode) dialog.append(picture);
    dialog.removeAttribute("data-enlarged");
    enlarge.setAttribute("aria-pressed", "false");
    enlarge.textContent = words.enlarge;
    dialog.showModal();
    dialog.scrollTo(0, 0);
    close.focus();
  }
  close.addEventListener("click", function () { dialog.close(); });
  enlarge.addEventListener("click", function () { enlarged(!dialog.hasAttribute("data-enlarged")); });
  picture.addEventListener("click", function (event) {
    if (WIDE.matches) dialog.close();
    else enlarged(!dialog.hasAttribute("data-enlarged"), event.clientX, event.clientY);
  });
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
