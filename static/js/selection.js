// Selecting covers for the selection bar (templates/partials/bulk-bar.eta): the count ("3
// selected", announced), shift-click (or Shift+Space) to select a range, "Select all" (the covers
// loaded so far), Clear, and the keys: Enter in a cover's checkbox goes to the bar, Escape
// clears the selection. Also opens and closes the "Add to…" dialog htmx brings. The checkboxes
// belong to the bar's form (form="bulk-series" or "bulk-books"), which works without this file.
(function () {
  "use strict";

  /** The checkboxes of a bar's form, in page order. */
  function boxesOf(form) {
    return Array.prototype.slice.call(document.querySelectorAll('input.card-select[form="' + form.id + '"]'));
  }

  function refresh(form) {
    var count = boxesOf(form).filter(function (box) {
      return box.checked;
    }).length;
    var output = form.querySelector(".bulk-count");
    var text = count > 0 ? window.pageMessage("selected", null, count) : "";
    if (output && output.textContent !== text) output.textContent = text;
    var selectAll = form.querySelector("[data-select-all]");
    if (selectAll) selectAll.hidden = false;
  }

  function refreshAll() {
    document.querySelectorAll("form.bulk-bar").forEach(refresh);
  }

  function setAll(form, checked) {
    boxesOf(form).forEach(function (box) {
      box.checked = checked;
    });
    anchors[form.id] = null;
    refresh(form);
  }

  /** Per bar, the checkbox clicked last: a shift-click selects (or clears) everything from it to the one clicked. */
  var anchors = {};

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    var box = target.closest("input.card-select");
    if (box && box.form) {
      var boxes = boxesOf(box.form);
      var anchor = anchors[box.form.id];
      if (event.shiftKey && anchor && boxes.indexOf(anchor) >= 0) {
        var from = boxes.indexOf(anchor);
        var to = boxes.indexOf(box);
        boxes.slice(Math.min(from, to), Math.max(from, to) + 1).forEach(function (other) {
          other.checked = box.checked;
        });
      }
      anchors[box.form.id] = box;
      refresh(box.form);
      return;
    }
    var selectAll = target.closest("[data-select-all]");
    if (selectAll && selectAll.form) {
      setAll(selectAll.form, true);
      return;
    }
    var close = target.closest("[data-close-dialog]");
    if (close && close.closest("dialog")) close.closest("dialog").close();
  });

  // In "Edit metadata", typing in a field (or choosing a direction) ticks its "Change" box.
  document.addEventListener("input", function (event) {
    var target = event.target;
    if (!(target instanceof Element) || !target.closest("dialog.bulk-dialog") || target.name === "set") return;
    var tick = target.closest(".edit-field") && target.closest(".edit-field").querySelector('input[name="set"]');
    if (tick) tick.checked = true;
  });

  // Clear unchecks everything (a form reset would bring back the covers swapped in checked after an action).
  document.addEventListener("reset", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("bulk-bar")) return;
    event.preventDefault();
    setAll(form, false);
  });

  /** The bar whose checkboxes are selected (the first such on the page), or null. */
  function barWithSelection() {
    var bars = document.querySelectorAll("form.bulk-bar");
    for (var i = 0; i < bars.length; i++) {
      if (boxesOf(bars[i]).some(function (box) { return box.checked; })) return bars[i];
    }
    return null;
  }

  document.addEventListener("keydown", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Enter" && target.matches("input.card-select") && target.form) {
      // To the bar's first action (the form's hidden first button keeps Enter from submitting it).
      event.preventDefault();
      var first = target.form.querySelector(".bulk-actions button");
      if (first) first.focus();
      return;
    }
    if (event.key !== "Escape" || document.querySelector("dialog[open]")) return;
    if (target.matches("input:not([type=checkbox]):not([type=radio]), textarea, select, [contenteditable]")) return;
    var bar = barWithSelection();
    if (bar) {
      setAll(bar, false);
      if (target.closest("form.bulk-bar") === bar) {
        var selectAll = bar.querySelector("[data-select-all]");
        if (selectAll) selectAll.focus();
      }
    }
  });

  // htmx brings the "Add to…" dialog: shown as a modal; closed (Cancel, Escape, or added), it goes.
  document.addEventListener("htmx:load", function (event) {
    var element = event.detail && event.detail.elt;
    if (!(element instanceof Element)) return;
    var dialogs = element.matches("dialog.bulk-dialog") ? [element] : Array.prototype.slice.call(element.querySelectorAll("dialog.bulk-dialog"));
    dialogs.forEach(function (dialog) {
      if (dialog.open) return;
      dialog.addEventListener("close", function () {
        dialog.remove();
      });
      dialog.showModal();
    });
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var element = event.detail && event.detail.elt;
    var dialog = element instanceof Element ? element.closest("dialog.bulk-dialog") : null;
    // A refused try comes back as a new dialog (with why) in place of this one; a done one closes it.
    if (dialog && dialog.open && event.detail.xhr && event.detail.xhr.status < 300) dialog.close();
  });

  document.addEventListener("DOMContentLoaded", refreshAll);
  document.addEventListener("htmx:afterSettle", refreshAll);
})();
