// Behaviour shared by every page, without inline handlers (the Content-Security-Policy forbids
// them): the theme switch, the side menu, copy buttons, closing the live search popup, and the
// keyboard shortcuts ("/" search, "g h" home, "?" the list of shortcuts).
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
      var label = window.pageMessage("theme." + theme);
      button.setAttribute("aria-label", label);
      button.title = label;
    });
  }

  // The side menu: beside the page on a wide screen, where collapsing it is remembered; over the
  // page on a phone, where it opens from the Menu button and closes when a link is followed.
  // <html data-menu="closed|open"> says which (the CSS decides what shows).
  var wide = window.matchMedia("(min-width: 900px)");

  function menuShown() {
    var menu = document.getElementById("site-menu");
    return !!menu && getComputedStyle(menu).display !== "none";
  }

  function syncMenuButton() {
    var shown = menuShown();
    document.querySelectorAll(".menu-toggle").forEach(function (button) {
      button.setAttribute("aria-expanded", shown ? "true" : "false");
    });
  }

  function setMenu(state) {
    if (state) document.documentElement.dataset.menu = state;
    else delete document.documentElement.dataset.menu;
    if (wide.matches) {
      try {
        if (state === "closed") localStorage.setItem("longbox-menu", "closed");
        else localStorage.removeItem("longbox-menu");
      } catch (e) {
        // Not remembered, still applied.
      }
    }
    syncMenuButton();
  }

  function toggleMenu() {
    if (wide.matches) setMenu(menuShown() ? "closed" : null);
    else setMenu(menuShown() ? null : "open");
  }

  document.addEventListener("DOMContentLoaded", syncMenuButton);
  document.addEventListener("htmx:afterSettle", syncMenuButton);
  wide.addEventListener("change", function () {
    if (document.documentElement.dataset.menu === "open") setMenu(null);
    syncMenuButton();
  });

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    if (target.closest(".menu-toggle")) {
      toggleMenu();
      return;
    }
    if (!wide.matches && target.closest("#site-menu a")) setMenu(null);
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
          copyButton.textContent = window.pageMessage("copied");
        });
      }
      return;
    }
    // The folder picker's "Use this folder" (templates/partials/folder-picker.eta): the path
    // into the library form, and the folder's name as the library's while it has none.
    var useFolder = target.closest("[data-use-folder]");
    if (useFolder) {
      var pathField = document.getElementById("library-path");
      var nameField = document.getElementById("library-name");
      if (pathField) pathField.value = useFolder.getAttribute("data-use-folder");
      if (nameField && !nameField.value.trim()) nameField.value = useFolder.getAttribute("data-folder-name");
      if (pathField) pathField.focus();
      return;
    }
    var popup = document.getElementById("search-popup");
    if (popup && !target.closest(".search")) popup.textContent = "";
  });

  /** True when keys go to a form field (or the page's own editing), not to shortcuts. */
  function typing(target) {
    return target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement || (target instanceof HTMLElement && target.isContentEditable);
  }

  /** The list of shortcuts (templates/partials/shortcuts.eta): "?" opens and closes it. */
  function toggleShortcuts() {
    var dialog = document.getElementById("shortcuts");
    if (!dialog) return;
    if (dialog.open) dialog.close();
    else dialog.showModal();
  }
  // The readers show books in frames of their own, whose keys they pass on as this event.
  document.addEventListener("longbox:shortcuts", toggleShortcuts);

  /** "g" waits this long for its second key ("g h": home). */
  var CHORD_MS = 1500;
  var chordStarted = 0;

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      var popup = document.getElementById("search-popup");
      if (popup) popup.textContent = "";
      if (!wide.matches && document.documentElement.dataset.menu === "open") setMenu(null);
    }
    if (typing(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
    // "/" focuses the search field, as in many web applications.
    if (event.key === "/") {
      var search = document.getElementById("site-search");
      if (search) {
        event.preventDefault();
        search.focus();
      }
    } else if (event.key === "?") {
      event.preventDefault();
      toggleShortcuts();
    } else if (event.key === "g") {
      chordStarted = Date.now();
    } else if (event.key === "h" && Date.now() - chordStarted < CHORD_MS) {
      chordStarted = 0;
      location.assign("/");
    } else {
      chordStarted = 0;
    }
  });
})();
