// On a page with an attention playground (an element of class "qkv-playground"), load it; on every
// other page this is all that runs.
if (document.querySelector(".qkv-playground")) import("./playground.js");
