// Reordering a collection or read list on its page (templates/pages/reading-list.eta): drag a
// cover onto another, press its Move buttons, or focus a cover and press Alt + an arrow key.
// Each move is saved at once (POST .../items/<id>/move, as the buttons' forms do without
// script) and announced in the page's status region. The page may be loaded again by htmx's
// boosted navigation, so everything is delegated from the document and bound once.
(function () {
  "use strict";
  if (window.longboxListOrder) return;
  window.longboxListOrder = true;

  var dragged = null;

  function itemsOf(list) {
    return Array.prototype.slice.call(list.querySelectorAll(":scope > .list-item"));
  }

  function csrfToken() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRF-Token"] || "";
    } catch (e) {
      return "";
    }
  }

  function announce(message) {
    var status = document.getElementById("order-status");
    if (status) status.textContent = message;
  }

  /** After the DOM changed: each item's label and its buttons' no-script positions. */
  function renumber(list) {
    var items = itemsOf(list);
    var total = list.getAttribute("data-total") || String(items.length);
    items.forEach(function (item, index) {
      var position = index + 1;
      item.setAttribute("aria-label", window.pageMessage("itemPosition", { name: item.getAttribute("data-item-name"), position: position, total: total }));
      item.querySelectorAll("[data-move]").forEach(function (button) {
        var field = button.form && button.form.elements.namedItem("position");
        if (field) field.value = String(Math.max(position + Number(button.getAttribute("data-move")), 1));
      });
    });
  }

  /** Saves where `item` now is, then says so. */
  function save(list, item) {
    var position = itemsOf(list).indexOf(item) + 1;
    var form = item.querySelector("form[action$='/move']");
    renumber(list);
    var name = item.getAttribute("data-item-name");
    var total = list.getAttribute("data-total");
    fetch(form.getAttribute("action"), {
      method: "POST",
      headers: { "X-CSRF-Token": csrfToken(), "HX-Request": "true", "Content-Type": "application/x-www-form-urlencoded" },
      body: "position=" + position,
      credentials: "same-origin",
    }).then(function (response) {
      if (!response.ok) throw new Error(String(response.status));
      announce(window.pageMessage("moved", { name: name, position: position, total: total }));
    }).catch(function () {
      announce(window.pageMessage("notSaved", { name: name }));
    });
  }

  /** Moves `item` one place back (-1) or on (+1). */
  function step(list, item, delta) {
    var items = itemsOf(list);
    var index = items.indexOf(item);
    var target = items[index + delta];
    if (!target) {
      announce(window.pageMessage(delta < 0 ? "alreadyFirst" : "alreadyLast", { name: item.getAttribute("data-item-name") }));
      return false;
    }
    list.insertBefore(item, delta < 0 ? target : target.nextSibling);
    save(list, item);
    return true;
  }

  document.addEventListener("click", function (event) {
    var button = event.target instanceof Element ? event.target.closest("[data-reorder] [data-move]") : null;
    if (!button) return;
    event.preventDefault();
    var item = button.closest(".list-item");
    step(item.parentElement, item, Number(button.getAttribute("data-move")));
    button.focus();
  });

  document.addEventListener("keydown", function (event) {
    var item = event.target instanceof Element && event.target.matches("[data-reorder] > .list-item") ? event.target : null;
    if (!item || !event.altKey) return;
    var delta = { ArrowUp: -1, ArrowLeft: -1, ArrowDown: 1, ArrowRight: 1 }[event.key];
    if (!delta) return;
    event.preventDefault();
    step(item.parentElement, item, delta);
    item.focus();
  });

  document.addEventListener("dragstart", function (event) {
    var item = event.target instanceof Element ? event.target.closest("[data-reorder] > .list-item") : null;
    if (!item) return;
    dragged = item;
    item.classList.add("dragging");
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", item.getAttribute("data-item-id"));
  });

  document.addEventListener("dragover", function (event) {
    if (dragged && event.target instanceof Element && event.target.closest("[data-reorder] > .list-item")) {
      event.preventDefault();
      event.dataTransfer.dropEffect = "move";
    }
  });

  document.addEventListener("drop", function (event) {
    var target = dragged && event.target instanceof Element ? event.target.closest("[data-reorder] > .list-item") : null;
    if (!target) return;
    event.preventDefault();
    var item = dragged;
    var list = item.parentElement;
    if (target !== item && target.parentElement === list) {
      // Dropped on a later item: it goes after that one; on an earlier one, before it.
      var after = itemsOf(list).indexOf(item) < itemsOf(list).indexOf(target);
      list.insertBefore(item, after ? target.nextSibling : target);
      save(list, item);
    }
  });

  document.addEventListener("dragend", function () {
    if (dragged) dragged.classList.remove("dragging");
    dragged = null;
  });
})();
