// Behaviour shared by every page, without inline handlers (the Content-Security-Policy forbids
// them): the theme switch, the side menu, copy buttons, and closing the live search popup.
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
      if (!wide.matches && document.documentElement.dataset.menu === "open") setMenu(null);
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
