/* incident-kb: the header's search, answered from the Pagefind index built into the site
   (pagefind/). Pagefind fetches only the parts of its index a query needs, so search is ready as
   soon as a page opens and a tab holds little, at any number of records; everything comes from the
   site itself (no outside host). This script fills the box of the theme's partials/search.html:
   results, a filter by kind (knobs, incidents, docs), and the query and filter kept for the tab's
   session, so that they are still there on the page a result opens. Two indexes answer: the
   records' names (pagefind-names/: the pages whose id, name, short name or title match come
   first) and the pages' text (pagefind/).
   What is indexed, how words weigh and each page's kind are decided when the site is built
   (site_search.py and the pages): this script only asks and shows.
   Once the list holds a query's whole answer, the box names that query (data-kb-answered): a list
   shown earlier answered a prefix typed before, and a tool reading the results waits for it. */
(function () {
  "use strict";

  var PAGE = 10; // results shown at a time
  var NAMED = 5; // at most this many pages found by their names lead the results
  var PAUSE = 30; // ms after a key before searching: fast typing searches once

  // Pagefind reads a leading '+' or '−' as part of the word: '+12.8%' asks for '12.8%'.
  function cleanQuery(text) {
    return text.replace(/(^|\s)[+\u2212](?=\d)/g, "$1").trim();
  }

  // A number typed alone ('12.8', '12.8%'): Pagefind reads it as its digits and also matches every
  // name that starts with them (knob-1280), so the pages named by it are those whose names hold the
  // number itself (a knob's names hold its gains' numbers, site_search.py); null for other queries.
  function numberIn(query) {
    var number = /^(\d+(?:\.\d+)?)%?$/.exec(query);
    if (!number) return null;
    var pattern = new RegExp("(^|\\s)" + number[1].replace(".", "\\.") + "(?=$|[\\s.,;])");
    return function (page) { return pattern.test(page.content || ""); };
  }

  // Pagefind's excerpt is the page's own text with the matches in <mark>: shown as text, with
  // only the marks kept as elements.
  function excerpt(html) {
    var out = document.createElement("p");
    out.className = "kb-search__excerpt";
    var parsed = new DOMParser().parseFromString("<p>" + html + "</p>", "text/html").body.firstChild;
    Array.prototype.forEach.call(parsed ? parsed.childNodes : [], function (node) {
      if (node.nodeName === "MARK") {
        var mark = document.createElement("mark");
        mark.textContent = node.textContent;
        out.appendChild(mark);
      } else {
        out.appendChild(document.createTextNode(node.textContent));
      }
    });
    return out;
  }

  function item(page) {
    var li = document.createElement("li");
    li.className = "md-search-result__item kb-search__result";
    var a = document.createElement("a");
    a.className = "md-search-result__link";
    a.href = page.url;
    var article = document.createElement("article");
    article.className = "md-search-result__article md-typeset";
    var title = document.createElement("h1");
    var kind = page.filters && page.filters.kind && page.filters.kind[0];
    if (kind) {
      var badge = document.createElement("span");
      badge.className = "kb-search__kind";
      badge.textContent = kind;
      title.appendChild(badge);
      title.appendChild(document.createTextNode(" "));
    }
    title.appendChild(document.createTextNode((page.meta && page.meta.title) || page.url));
    article.appendChild(title);
    article.appendChild(excerpt(page.excerpt || ""));
    a.appendChild(article);
    li.appendChild(a);
    return li;
  }

  function setUp() {
    var box = document.querySelector("[data-kb-search]");
    if (!box || box.hasAttribute("data-kb-ready")) return;
    box.setAttribute("data-kb-ready", "");
    var input = box.querySelector(".kb-search__input");
    var meta = box.querySelector(".kb-search__meta");
    var list = box.querySelector(".kb-search__list");
    var more = box.querySelector(".kb-search__more");
    var kinds = Array.prototype.slice.call(box.querySelectorAll("[data-kb-kind]"));
    var toggle = document.getElementById("__search");
    var root = new URL(box.getAttribute("data-kb-root") || "./", document.baseURI);
    var bundle = new URL(box.getAttribute("data-kb-search"), document.baseURI);
    var namesBundle = new URL(box.getAttribute("data-kb-names"), document.baseURI);
    var storeKey = "incident-kb search " + root.pathname;
    var asked = 0; // the newest search: the answers to older ones are dropped
    var found = []; // its results from the pages' text (each page's data is fetched as it is shown)
    var shown = 0;
    var listed = {}; // the addresses listed for this search (a page found by its name is not listed twice)
    var timer = null;
    var loading = null;

    function words(name) { return meta.getAttribute("data-" + name) || ""; }
    function say(text) { meta.textContent = text; }
    function kind() {
      var pressed = kinds.filter(function (b) { return b.getAttribute("aria-pressed") === "true"; })[0];
      return pressed ? pressed.getAttribute("data-kb-kind") : "";
    }
    function setKind(value) {
      kinds.forEach(function (b) { b.setAttribute("aria-pressed", String(b.getAttribute("data-kb-kind") === value)); });
    }
    function save() {
      try { sessionStorage.setItem(storeKey, JSON.stringify({ q: input.value, kind: kind() })); } catch (e) { /* storage off */ }
    }
    function saved() {
      try { return JSON.parse(sessionStorage.getItem(storeKey) || "{}") || {}; } catch (e) { return {}; }
    }

    function engine(url) { // each bundle's pagefind.js is a module of its own, with its own state
      return import(url.href + "pagefind.js").then(function (pagefind) {
        return Promise.resolve(pagefind.options({ baseUrl: root.pathname, excerptLength: 24 }))
          .then(function () { return pagefind.init(); })
          .then(function () { return pagefind; });
      });
    }

    function load() {
      if (!loading) {
        loading = Promise.all([engine(bundle), engine(namesBundle).catch(function () { return null; })])
          .then(function (engines) {
            box.setAttribute("data-state", "ready");
            if (!input.value.trim()) say(words("placeholder"));
            return { pages: engines[0], names: engines[1] };
          });
        loading.catch(function () {
          box.setAttribute("data-state", "failed");
          say(words("failed"));
        });
      }
      return loading;
    }

    function append(pages) {
      pages.forEach(function (page) {
        if (listed[page.url]) return;
        listed[page.url] = true;
        list.appendChild(item(page));
      });
    }

    function showMore(id) {
      var next = found.slice(shown, shown + PAGE);
      shown += next.length;
      return Promise.all(next.map(function (result) { return result.data(); })).then(function (pages) {
        if (id !== asked) return;
        append(pages);
        more.hidden = shown >= found.length;
      });
    }

    function search() {
      var id = ++asked;
      var typed = input.value;
      var query = cleanQuery(typed);
      box.removeAttribute("data-kb-answered");
      save();
      if (!query) {
        list.textContent = "";
        more.hidden = true;
        found = [];
        if (box.getAttribute("data-state") === "ready") say(words("placeholder"));
        return;
      }
      var options = kind() ? { filters: { kind: kind() } } : {};
      load().then(function (engines) {
        return Promise.all([engines.pages.search(query, options),
                            engines.names ? engines.names.search(query, options) : null]);
      }).then(function (answers) {
        if (id !== asked || !answers[0]) return;
        var number = numberIn(query);
        var named = answers[1] ? answers[1].results.slice(0, number ? 50 : NAMED) : [];
        return Promise.all(named.map(function (result) { return result.data(); })).then(function (namedPages) {
          if (id !== asked) return;
          if (number) namedPages = namedPages.filter(number).slice(0, NAMED);
          found = answers[0].results;
          shown = 0;
          listed = {};
          list.textContent = "";
          var count = Math.max(found.length, answers[1] ? answers[1].results.length : 0);
          say(count === 0 ? words("none") : count === 1 ? words("one") : words("other").replace("#", String(count)));
          append(namedPages);
          return showMore(id).then(function () {
            if (id === asked) box.setAttribute("data-kb-answered", typed);
          });
        });
      }).catch(function () {
        if (id === asked) say(words("failed"));
      });
    }

    function soon() {
      clearTimeout(timer);
      timer = setTimeout(search, PAUSE);
    }

    function open() {
      if (toggle && !toggle.checked) toggle.click();
      input.focus();
      input.select();
    }

    function close() {
      if (toggle && toggle.checked) toggle.click();
      input.blur();
    }

    var state = saved();
    if (state.q) input.value = state.q;
    setKind(state.kind || "");

    input.addEventListener("input", soon);
    input.addEventListener("focus", function () {
      if (toggle && !toggle.checked) toggle.click();
      if (input.value.trim() && !list.firstChild) search();
    });
    var form = box.querySelector("form");
    form.addEventListener("submit", function (event) { // Enter opens the first result
      event.preventDefault();
      var first = list.querySelector("a");
      if (first) first.click();
    });
    form.addEventListener("reset", function () {
      setTimeout(function () { search(); input.focus(); }, 0);
    });
    kinds.forEach(function (button) {
      button.addEventListener("click", function () {
        setKind(button.getAttribute("data-kb-kind"));
        search();
      });
    });
    more.addEventListener("click", function () { showMore(asked); });
    if (toggle) {
      toggle.addEventListener("change", function () {
        if (!toggle.checked) return;
        input.focus();
        if (input.value.trim() && !list.firstChild) search();
      });
    }
    box.addEventListener("keydown", function (event) {
      var links = Array.prototype.slice.call(list.querySelectorAll("a"));
      var at = links.indexOf(document.activeElement);
      if (event.key === "Escape") {
        close();
        event.preventDefault();
      } else if (event.key === "ArrowDown" && links.length) {
        links[Math.min(at + 1, links.length - 1)].focus();
        event.preventDefault();
      } else if (event.key === "ArrowUp" && at !== -1) {
        (at === 0 ? input : links[at - 1]).focus();
        event.preventDefault();
      }
    });
    // Material's keys for its search box: '/', 's' or 'f' outside a form field.
    document.addEventListener("keydown", function (event) {
      var target = event.target;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
      if (event.key === "/" || event.key === "s" || event.key === "f") {
        open();
        event.preventDefault();
      }
    });

    // Ready at once: the index's entry point (a few kilobytes, kept by the browser's cache from
    // page to page) loads as the page opens; the rest comes with the queries.
    load();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
