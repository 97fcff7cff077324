/* incident-kb: sorting and filtering for the index tables, and column labels for tables shown as
   cards on a phone. No dependencies; served from the site itself so it works offline. A <div class="kb-table-tools" data-filters="Status,Tags"
   data-split="Tags"> before a table names the columns that get a filter; columns listed in
   data-split hold comma-separated values (tags). Filters can be preset from the URL:
   knobs/?status=reverted&tags=decode. */
(function () {
  "use strict";

  function nextTable(marker) {
    for (var node = marker.nextElementSibling; node; node = node.nextElementSibling) {
      if (node.tagName === "TABLE") return node;
      var inner = node.querySelector && node.querySelector("table");
      if (inner) return inner;
    }
    return null;
  }

  function cellText(row, index) {
    var cell = row.cells[index];
    return cell ? cell.textContent.replace(/\s+/g, " ").trim() : "";
  }

  function cellSortValue(row, index) { // a cell can say what it sorts by (a gain: its improvement)
    var cell = row.cells[index];
    var marked = cell ? cell.querySelector("[data-sort]") : null;
    return marked ? marked.getAttribute("data-sort") : null;
  }

  function sortKey(text, value) {
    if (value !== null && value !== "" && !isNaN(parseFloat(value))) return { n: parseFloat(value), t: text };
    var number = /^[+-]?\d+(\.\d+)?%?(\s|$)/.exec(text);
    return number ? { n: parseFloat(text), t: text } : { n: null, t: text.toLowerCase() };
  }

  function compare(a, b) {
    if (a.t === "" || b.t === "") return a.t === b.t ? 0 : a.t === "" ? 1 : -1; // empty cells last
    if (a.n !== null && b.n !== null) return a.n - b.n;
    return a.t < b.t ? -1 : a.t > b.t ? 1 : 0;
  }

  function makeSortable(table) {
    var headers = table.tHead ? table.tHead.rows[0].cells : [];
    table.setAttribute("data-kb-sortable", ""); // not a class: Material styles only tables without one
    Array.prototype.forEach.call(headers, function (header, index) {
      // A real button in the header cell: reachable with Tab, pressed with Enter or Space, and the
      // cell keeps its column-header role (which is where aria-sort belongs).
      var button = document.createElement("button");
      button.type = "button";
      button.className = "kb-sort";
      while (header.firstChild) button.appendChild(header.firstChild);
      header.appendChild(button);
      function sort() {
        var ascending = header.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(headers, function (h) { h.removeAttribute("aria-sort"); });
        header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var keyed = rows.map(function (row, position) {
          return { row: row, key: sortKey(cellText(row, index), cellSortValue(row, index)), position: position };
        });
        keyed.sort(function (a, b) {
          var order = compare(a.key, b.key);
          if (a.key.t !== "" && b.key.t !== "" && !ascending) order = -order;
          return order || a.position - b.position;
        });
        keyed.forEach(function (item) { body.appendChild(item.row); });
      }
      header.addEventListener("click", sort); // the button's clicks (and key presses) bubble here
    });
  }

  // On a phone, tables of two or more columns show one card per row (kb.css); each cell is
  // labelled with its column's name.
  function labelCells(table) {
    if (!table.tHead || !table.tHead.rows.length) return;
    var names = Array.prototype.map.call(table.tHead.rows[0].cells, function (h) {
      return h.textContent.replace(/\s+/g, " ").trim();
    });
    if (names.length < 2) return;
    Array.prototype.forEach.call(table.tBodies, function (body) {
      Array.prototype.forEach.call(body.rows, function (row) {
        Array.prototype.forEach.call(row.cells, function (cell, index) {
          if (names[index]) cell.setAttribute("data-label", names[index]);
        });
      });
    });
    table.setAttribute("data-kb-cards", "");
  }

  function makeFilterable(table, marker) {
    var headers = Array.prototype.map.call(table.tHead.rows[0].cells, function (h) { return h.textContent.trim(); });
    var wanted = (marker.getAttribute("data-filters") || "").split(",").filter(Boolean);
    var split = (marker.getAttribute("data-split") || "").split(",").filter(Boolean);
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var params = new URLSearchParams(window.location.search);
    var controls = [];

    function values(row, column) {
      var text = cellText(row, column.index);
      if (column.split) return text.split(",").map(function (v) { return v.trim(); }).filter(Boolean);
      return text ? [text] : [];
    }

    var count = document.createElement("span");
    count.className = "kb-count";

    function apply() {
      var query = search.value.trim().toLowerCase();
      var shown = 0;
      rows.forEach(function (row) {
        var visible = controls.every(function (column) {
          return !column.select.value || values(row, column).indexOf(column.select.value) !== -1;
        }) && (!query || row.textContent.toLowerCase().indexOf(query) !== -1);
        row.hidden = !visible;
        if (visible) shown += 1;
      });
      count.textContent = shown + " of " + rows.length + " shown";
    }

    wanted.forEach(function (name) {
      var index = headers.indexOf(name);
      if (index === -1) return;
      var column = { name: name, index: index, split: split.indexOf(name) !== -1 };
      var seen = {};
      rows.forEach(function (row) { values(row, column).forEach(function (v) { seen[v] = true; }); });
      var label = document.createElement("label");
      label.appendChild(document.createTextNode(name));
      var select = document.createElement("select");
      select.setAttribute("aria-label", "Filter by " + name.toLowerCase());
      select.setAttribute("data-column", name);
      select.appendChild(new Option("all", ""));
      Object.keys(seen).sort().forEach(function (value) { select.appendChild(new Option(value, value)); });
      var preset = params.get(name.toLowerCase());
      if (preset && seen[preset]) select.value = preset;
      select.addEventListener("change", apply);
      label.appendChild(select);
      marker.appendChild(label);
      column.select = select;
      controls.push(column);
    });

    var search = document.createElement("input");
    search.type = "search";
    search.placeholder = "Filter rows…";
    search.setAttribute("aria-label", "Filter rows");
    search.addEventListener("input", apply);
    marker.appendChild(search);
    marker.appendChild(count);
    apply();
  }

  function setUp() {
    document.querySelectorAll("article table").forEach(function (table) {
      if (!table.hasAttribute("data-kb-cards")) labelCells(table);
    });
    document.querySelectorAll(".kb-table-tools").forEach(function (marker) {
      if (marker.getAttribute("data-ready")) return;
      var table = nextTable(marker);
      if (!table || !table.tHead || !table.tBodies.length) return;
      marker.setAttribute("data-ready", "true");
      makeSortable(table);
      makeFilterable(table, marker);
    });
  }

  if (typeof window.document$ !== "undefined" && window.document$.subscribe) {
    window.document$.subscribe(setUp);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
