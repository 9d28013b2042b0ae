// The words of every page script in the page's language: `window.pageMessage(id, values, count)`
// reads the layout's #page-messages block. Loaded first and not deferred, so every script (the
// deferred ones, the readers' async modules) finds it whenever it runs.
(function () {
  "use strict";

  var messages = null;

  /**
   * A message of the layout's #page-messages block (src/http/web/views.ts pageMessages) with its
   * `{name}` placeholders filled from `values`; a message with plural forms takes the form of
   * `count` by Intl.PluralRules, its `#` the number as the page's language writes it.
   */
  function pageMessage(id, values, count) {
    if (!messages) {
      var block = document.getElementById("page-messages");
      messages = block ? JSON.parse(block.textContent) : {};
    }
    var message = messages[id] || id;
    if (typeof message === "object") {
      var lang = document.documentElement.lang;
      message = (message[new Intl.PluralRules(lang).select(count)] || message.other).replace("#", count.toLocaleString(lang));
    }
    return message.replace(/\{(\w+)\}/g, function (placeholder, name) {
      return values && name in values ? String(values[name]) : placeholder;
    });
  }
  window.pageMessage = pageMessage;
})();
