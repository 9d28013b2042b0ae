// Behaviour shared by every page, without inline handlers (the Content-Security-Policy forbids
// them): the theme switch, copy buttons, and closing the live search popup.
(function () {
  "use strict";

  var THEMES = ["system", "light", "dark"];

  function currentTheme() {
    return document.documentElement.dataset.theme || "system";
  }

  function applyTheme(theme) {
    if (theme === "system") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
    try {
      if (theme === "system") localStorage.removeItem("longbox-theme");
      else localStorage.setItem("longbox-theme", theme);
    } catch (e) {
      // Not remembered, still applied.
    }
    document.querySelectorAll(".theme-switch").forEach(function (button) {
      button.setAttribute("aria-label", "Theme: " + theme + " (switch)");
      button.title = "Theme: " + theme;
    });
  }

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    var themeButton = target.closest(".theme-switch");
    if (themeButton) {
      var next = THEMES[(THEMES.indexOf(currentTheme()) + 1) % THEMES.length];
      applyTheme(next);
      return;
    }
    var copyButton = target.closest("[data-copy-from]");
    if (copyButton) {
      var source = document.getElementById(copyButton.getAttribute("data-copy-from"));
      if (source && navigator.clipboard) {
        navigator.clipboard.writeText(source.textContent.trim()).then(function () {
          copyButton.textContent = "Copied";
        });
      }
      return;
    }
    var popup = document.getElementById("search-popup");
    if (popup && !target.closest(".search")) popup.textContent = "";
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      var popup = document.getElementById("search-popup");
      if (popup) popup.textContent = "";
    }
    // "/" focuses the search field, as in many web applications.
    if (event.key === "/" && !(event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement || event.target instanceof HTMLSelectElement)) {
      var search = document.getElementById("site-search");
      if (search) {
        event.preventDefault();
        search.focus();
      }
    }
  });
})();
