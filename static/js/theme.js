// Applies the chosen theme before the first paint (loaded synchronously in <head>): "light" or
// "dark" from localStorage, else nothing, so the CSS follows the system setting.
(function () {
  try {
    var theme = localStorage.getItem("longbox-theme");
    if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  } catch (e) {
    // Storage may be unavailable (private mode): the system theme applies.
  }
})();
