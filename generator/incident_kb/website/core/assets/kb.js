/* incident-kb: sorting, filtering and pages for the index tables, and column labels for tables
   shown as cards on a phone. No dependencies; served from the site itself so it works offline.

   A <div class="kb-table-tools" data-filters="Status,Reclaimable,Tags" data-split="Tags"
   data-page-size="50"> before a table makes it an index: a filter for each named column, a text
   filter, sortable headers, and pages of rows. A filter's values are the row's facet when the
   page gives one (an empty <span data-kb-facets data-reclaimable="yes"> in the row's first cell:
   decided when the site was built) and the column's text otherwise; columns listed in data-split
   hold comma-separated values (tags). Everything the reader sets is kept in the URL
   (knobs/?status=reverted&reclaimable=yes&sort=best-gain&order=descending&page=2), so a view can
   be linked, and the page opens as the link says.

   Only the rows of the current page are in the document: 6,000 rows sort, filter and page in a
   few milliseconds and lay out as fifty. Until the script runs, a style rule (kb.css) shows only
   the first page; without scripts every row shows.

   A long index carries only its first rows, with links to pages of the others (for readers without
   scripts), and names in data-rows a JSON file of every row ({"columns": [...], "shared": [...],
   "rows": [[cell HTML, ...], ...]}: links to `.md` pages as the page's markdown had them, and a
   number for a cell that stands in that column's "shared" list). The script reads it, gives the
   links the address form the page's own first row shows (knob/ or knob.html), and filters, sorts
   and pages every row; the links to the pages of rows step aside. If the file cannot be read (a
   page opened from disk), the index works on the rows the page carries. */
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

  function text(node) {
    return node ? node.textContent.replace(/\s+/g, " ").trim() : "";
  }

  function slug(name) {
    return name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  }

  function sortKey(value, given) {
    if (given !== null && given !== "" && !isNaN(parseFloat(given))) return { n: parseFloat(given), t: value };
    var number = /^[+-]?\d+(\.\d+)?%?(\s|$)/.exec(value);
    return number ? { n: parseFloat(value), t: value } : { n: null, t: value.toLowerCase() };
  }

  function compare(a, b) {
    if (a.t === "" || b.t === "") return a.t === b.t ? 0 : a.t === "" ? 1 : -1; // empty cells last
    if (a.n !== null && b.n !== null) return a.n - b.n;
    return a.t < b.t ? -1 : a.t > b.t ? 1 : 0;
  }

  // On a phone, tables of two or more columns show one card per row (kb.css); each cell is
  // labelled with its column's name.
  function columnNames(table) {
    if (!table.tHead || !table.tHead.rows.length) return [];
    return Array.prototype.map.call(table.tHead.rows[0].cells, text);
  }

  function labelRow(row, names) {
    if (row.hasAttribute("data-kb-labelled")) return;
    row.setAttribute("data-kb-labelled", "");
    Array.prototype.forEach.call(row.cells, function (cell, index) {
      if (names[index]) cell.setAttribute("data-label", names[index]);
    });
  }

  function labelCells(table) {
    var names = columnNames(table);
    if (names.length < 2) return;
    Array.prototype.forEach.call(table.tBodies, function (body) {
      Array.prototype.forEach.call(body.rows, function (row) { labelRow(row, names); });
    });
    table.setAttribute("data-kb-cards", "");
  }

  // Every row of an index from its JSON file (see the top), or null when the file cannot be read or
  // does not fit the table.
  function loadRows(table, marker, done) {
    var source = marker.getAttribute("data-rows");
    if (!window.fetch || !window.Promise) return done(null);
    window.fetch(new URL(source, window.location.href).href).then(function (response) {
      if (!response.ok) throw new Error(response.status);
      return response.json();
    }).then(function (data) {
      return rowsOf(table, data);
    }).then(done, function () { done(null); });
  }

  function rowsOf(table, data) {
    var names = columnNames(table);
    if (!data || !data.rows || !data.rows.length || !data.columns || data.columns.join("\n") !== names.join("\n")) {
      return null;
    }
    var body = document.createElement("tbody");
    var shared = data.shared || [];
    var row = function (cells) {
      return "<tr><td>" + cells.map(function (cell, column) {
        return typeof cell === "number" ? shared[column][cell] : cell;
      }).join("</td><td>") + "</td></tr>";
    };
    // A few hundred rows at a time: the HTML of 6,000 rows as one string would grow the tab for good.
    for (var start = 0; start < data.rows.length; start += 500) {
      body.insertAdjacentHTML("beforeend", data.rows.slice(start, start + 500).map(row).join(""));
    }
    var address = addressForm(table.tBodies[0].querySelector("a[href]"), body.querySelector("a[href]"));
    Array.prototype.forEach.call(body.querySelectorAll("a[href]"), function (link) {
      link.setAttribute("href", address(link.getAttribute("href")));
    });
    return Array.prototype.slice.call(body.rows);
  }

  // How this site addresses a page: the page's first row links to it as the site's generator wrote
  // the link (knob-1/, knob-1.html); the same row's link in the JSON names knob-1.md.
  function addressForm(shown, given) {
    var page = /^([^?#]*)\.md([?#].*)?$/;
    var kept = function (href) { return href; };
    if (!shown || !given || !page.test(given.getAttribute("href"))) return kept;
    var stem = page.exec(given.getAttribute("href"))[1];
    var href = shown.getAttribute("href").replace(/[?#].*$/, "");
    var at = href.lastIndexOf(stem);
    if (at === -1) return kept;
    var before = href.slice(0, at), after = href.slice(at + stem.length);
    return function (target) {
      var parts = page.exec(target);
      return parts ? before + parts[1] + after + (parts[2] || "") : target;
    };
  }

  function makeIndex(table, marker, loaded) {
    var names = columnNames(table);
    var body = table.tBodies[0];
    var params = new URLSearchParams(window.location.search);
    var pageSize = parseInt(marker.getAttribute("data-page-size") || "50", 10) || 50;
    var wanted = (marker.getAttribute("data-filters") || "").split(",").filter(Boolean);
    var split = (marker.getAttribute("data-split") || "").split(",").filter(Boolean);
    if (loaded) {  // every row is here: the links to the pages of rows step aside
      var article = table.closest("article") || document;
      Array.prototype.forEach.call(article.querySelectorAll(".kb-pages"), function (parts) { parts.hidden = true; });
    }
    var rows = Array.prototype.map.call(loaded || body.rows, function (row, position) {
      var facets = row.cells[0] && row.cells[0].querySelector("[data-kb-facets]");
      return { row: row, position: position, facets: facets, keys: {}, text: null };
    });
    var sortIndex = -1, ascending = true, page = 0;
    var controls = [];
    var headers = table.tHead.rows[0].cells;
    if (names.length >= 2) table.setAttribute("data-kb-cards", "");
    table.setAttribute("data-kb-sortable", ""); // not a class: Material styles only tables without one

    function values(item, column) {
      var value;
      if (item.facets && item.facets.hasAttribute("data-" + column.key)) {
        value = item.facets.getAttribute("data-" + column.key);
        return value ? value.split("|") : [];
      }
      value = column.index === -1 ? "" : text(item.row.cells[column.index]);
      if (column.split) return value.split(",").map(function (v) { return v.trim(); }).filter(Boolean);
      return value ? [value] : [];
    }

    function key(item, index) {
      if (!(index in item.keys)) {
        var cell = item.row.cells[index];
        var marked = cell ? cell.querySelector("[data-sort]") : null;
        item.keys[index] = sortKey(text(cell), marked ? marked.getAttribute("data-sort") : null);
      }
      return item.keys[index];
    }

    var count = document.createElement("span");
    count.className = "kb-count";
    var search = document.createElement("input");
    var pager = document.createElement("nav");
    pager.className = "kb-pager";
    pager.setAttribute("aria-label", "Pages of the table");
    var previous = document.createElement("button");
    previous.type = "button";
    previous.textContent = "Previous";
    var where = document.createElement("span");
    where.className = "kb-pager__where";
    var next = document.createElement("button");
    next.type = "button";
    next.textContent = "Next";
    pager.appendChild(previous);
    pager.appendChild(where);
    pager.appendChild(next);

    function remember() {
      var query = new URLSearchParams(window.location.search);
      controls.forEach(function (column) {
        if (column.select.value) query.set(column.param, column.select.value); else query.delete(column.param);
      });
      if (search.value.trim()) query.set("q", search.value.trim()); else query.delete("q");
      if (sortIndex !== -1) {
        query.set("sort", slug(names[sortIndex]));
        query.set("order", ascending ? "ascending" : "descending");
      } else {
        query.delete("sort");
        query.delete("order");
      }
      if (page > 0) query.set("page", String(page + 1)); else query.delete("page");
      var url = window.location.pathname + (query.toString() ? "?" + query.toString() : "") + window.location.hash;
      if (url !== window.location.pathname + window.location.search + window.location.hash) {
        window.history.replaceState(window.history.state, "", url);
      }
    }

    function apply(keepPage) {
      var query = search.value.trim().toLowerCase();
      var active = controls.filter(function (column) { return column.select.value; });
      var matching = rows.filter(function (item) {
        for (var i = 0; i < active.length; i++) {
          if (values(item, active[i]).indexOf(active[i].select.value) === -1) return false;
        }
        if (!query) return true;
        if (item.text === null) item.text = item.row.textContent.toLowerCase();
        return item.text.indexOf(query) !== -1;
      });
      if (sortIndex !== -1) {
        matching.sort(function (a, b) {
          var ka = key(a, sortIndex), kb = key(b, sortIndex);
          var order = compare(ka, kb);
          if (ka.t !== "" && kb.t !== "" && !ascending) order = -order;
          return order || a.position - b.position;
        });
      }
      var pages = Math.max(1, Math.ceil(matching.length / pageSize));
      if (!keepPage) page = 0;
      page = Math.min(Math.max(page, 0), pages - 1);
      var shown = matching.slice(page * pageSize, (page + 1) * pageSize);
      shown.forEach(function (item) { labelRow(item.row, names); });
      var fragment = document.createDocumentFragment();
      shown.forEach(function (item) { fragment.appendChild(item.row); });
      body.textContent = "";
      body.appendChild(fragment);
      count.textContent = matching.length + " of " + rows.length + " shown";
      pager.hidden = pages < 2;
      where.textContent = matching.length
        ? "Rows " + (page * pageSize + 1) + "–" + (page * pageSize + shown.length) + " of " + matching.length
        : "No row";
      previous.disabled = page === 0;
      next.disabled = page >= pages - 1;
      remember();
    }

    // Sortable headers: a real button in each header cell (reachable with Tab, pressed with Enter
    // or Space); the cell keeps its column-header role, which is where aria-sort belongs.
    Array.prototype.forEach.call(headers, function (header, index) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "kb-sort";
      while (header.firstChild) button.appendChild(header.firstChild);
      header.appendChild(button);
      header.addEventListener("click", function () { // the button's clicks and key presses bubble here
        ascending = !(sortIndex === index && ascending);
        sortIndex = index;
        showSort();
        apply(false);
      });
    });

    function showSort() {
      Array.prototype.forEach.call(headers, function (h, index) {
        if (index === sortIndex) h.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        else h.removeAttribute("aria-sort");
      });
    }

    wanted.forEach(function (name) {
      var column = { name: name, key: slug(name), param: name.toLowerCase(), index: names.indexOf(name),
                     split: split.indexOf(name) !== -1 };
      var seen = Object.create(null); // no inherited names: '?status=constructor' is no value
      rows.forEach(function (item) { values(item, column).forEach(function (v) { seen[v] = true; }); });
      if (!Object.keys(seen).length) return;
      var label = document.createElement("label");
      label.appendChild(document.createTextNode(name));
      var select = document.createElement("select");
      select.setAttribute("aria-label", "Filter by " + name.toLowerCase());
      select.setAttribute("data-column", name);
      select.appendChild(new Option("all", ""));
      Object.keys(seen).sort().forEach(function (value) { select.appendChild(new Option(value, value)); });
      var preset = params.get(column.param);
      if (preset && seen[preset]) select.value = preset;
      select.addEventListener("change", function () { apply(false); });
      label.appendChild(select);
      marker.appendChild(label);
      column.select = select;
      controls.push(column);
    });

    search.type = "search";
    search.placeholder = "Filter rows…";
    search.setAttribute("aria-label", "Filter rows");
    search.value = params.get("q") || "";
    search.addEventListener("input", function () { apply(false); });
    marker.appendChild(search);
    marker.appendChild(count);
    previous.addEventListener("click", function () { page -= 1; apply(true); });
    next.addEventListener("click", function () { page += 1; apply(true); });
    var holder = table.closest(".md-typeset__scrollwrap") || table;
    holder.parentNode.insertBefore(pager, holder.nextSibling);

    var sortName = params.get("sort");
    if (sortName) {
      sortIndex = names.map(slug).indexOf(sortName);
      ascending = params.get("order") !== "descending";
      showSort();
    }
    page = Math.max(0, (parseInt(params.get("page") || "1", 10) || 1) - 1);
    apply(true);
    marker.setAttribute("data-ready", "true"); // the style rule that showed only the first page steps aside
    warmKeys(rows, headers.length, key);
  }

  // Each cell's sort key, read while the browser is idle, column by column from the left: a first
  // sort of thousands of rows then only compares (reading the keys costs more than sorting them).
  // A sort before this is done reads the keys it still needs itself.
  function warmKeys(rows, columns, key) {
    var column = 0, at = 0;
    var later = window.requestIdleCallback || function (work) {
      return setTimeout(function () { work({ timeRemaining: function () { return 8; } }); }, 50);
    };
    function work(deadline) {
      while (column < columns && deadline.timeRemaining() > 1) {
        for (var stop = Math.min(at + 200, rows.length); at < stop; at++) key(rows[at], column);
        if (at >= rows.length) { column += 1; at = 0; }
      }
      if (column < columns) later(work);
    }
    later(work);
  }

  function setUp() {
    document.querySelectorAll(".kb-table-tools").forEach(function (marker) {
      if (marker.getAttribute("data-ready") || marker.hasAttribute("data-loading")) return;
      var table = nextTable(marker);
      if (!table || !table.tHead || !table.tBodies.length) return;
      if (!marker.getAttribute("data-rows")) return makeIndex(table, marker, null);
      marker.setAttribute("data-loading", "");
      loadRows(table, marker, function (loaded) {
        marker.removeAttribute("data-loading");
        makeIndex(table, marker, loaded);
      });
    });
    document.querySelectorAll("article table").forEach(function (table) {
      if (!table.hasAttribute("data-kb-cards") && !table.hasAttribute("data-kb-sortable")) labelCells(table);
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
