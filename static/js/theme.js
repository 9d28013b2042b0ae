// Applies the chosen theme (and a collapsed menu) before the first paint (loaded synchronously in <head>): "light" or
// "dark" from localStorage, else nothing, so the CSS follows the system setting.
(function () {
  try {
    var theme = localStorage.getItem("longbox-theme");
    if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
    // The side menu collapsed on a wide screen stays so (static/js/app.js).
    if (localStorage.getItem("longbox-menu") === "closed") document.documentElement.dataset.menu = "closed";
  } catch (e) {
    // Storage may be unavailable (private mode): the system theme applies.
  }
})();
