// The book's behaviour: theme, menu, keys and search. No framework, and it
// works opened from file:// (the search index is a script, not a fetch).
(function () {
  "use strict";
  var root = document.documentElement;

  // Theme: light or dark, remembered.
  document.getElementById("theme-toggle").addEventListener("click", function () {
    var t = root.dataset.theme === "dark" ? "light" : "dark";
    root.dataset.theme = t;
    try { localStorage.setItem("kata-theme", t); } catch (e) {}
  });

  // The table of contents on a narrow screen.
  var menu = document.getElementById("menu-toggle");
  menu.addEventListener("click", function () {
    var open = document.body.classList.toggle("sidebar-open");
    menu.setAttribute("aria-expanded", open ? "true" : "false");
  });
  var current = document.querySelector("#sidebar li.current");
  if (current && current.scrollIntoView) current.scrollIntoView({ block: "nearest" });

  // Keys: ← and → turn the page, / and s search, Escape closes.
  var input = document.getElementById("search");
  var results = document.getElementById("search-results");
  document.addEventListener("keydown", function (e) {
    // A timeline with focus takes its own keys (← and → pan it).
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName) || e.target.isContentEditable;
    if (e.key === "Escape") {
      closeResults();
      closeNotes(null);
      input.blur();
      return;
    }
    if (typing) return;
    if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      var a = document.getElementById(e.key === "ArrowLeft" ? "prev" : "next");
      if (a) { e.preventDefault(); location.href = a.href; }
    } else if (e.key === "/" || e.key === "s") {
      e.preventDefault();
      input.focus();
    }
  });

  // Search over the prebuilt index, loaded on first use.
  var index = null;
  function load(then) {
    if (index) return then();
    if (window.bookSearchIndex) { index = window.bookSearchIndex; return then(); }
    var s = document.createElement("script");
    s.src = "searchindex.js";
    s.onload = function () { index = window.bookSearchIndex || []; then(); };
    document.head.appendChild(s);
  }
  function terms(q) {
    return q.toLowerCase().split(/\s+/).filter(function (t) { return t.length > 0; });
  }
  function count(hay, t) {
    var n = 0, i = hay.indexOf(t);
    while (i >= 0) { n++; i = hay.indexOf(t, i + t.length); }
    return n;
  }
  function escapeHTML(s) {
    return s.replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }
  function snippet(text, ts) {
    var low = text.toLowerCase(), at = low.indexOf(ts[0]);
    var from = Math.max(0, at - 60), s = text.slice(from, from + 180);
    var html = escapeHTML(s);
    ts.forEach(function (t) {
      html = html.replace(new RegExp("(" + t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + ")", "ig"), "<mark>$1</mark>");
    });
    return (from > 0 ? "… " : "") + html + (from + 180 < text.length ? " …" : "");
  }
  function search(q) {
    var ts = terms(q);
    if (!ts.length) return closeResults();
    var hits = [];
    index.forEach(function (e) {
      var title = e.t.toLowerCase(), text = e.x.toLowerCase(), score = 0;
      for (var i = 0; i < ts.length; i++) {
        var inTitle = count(title, ts[i]), inText = count(text, ts[i]);
        if (!inTitle && !inText) return;
        score += 20 * inTitle + Math.min(inText, 10);
      }
      hits.push({ e: e, score: score });
    });
    hits.sort(function (a, b) { return b.score - a.score; });
    results.innerHTML = "";
    if (!hits.length) {
      results.innerHTML = '<li class="none">Nothing found for “' + escapeHTML(q) + "”</li>";
    }
    hits.slice(0, 12).forEach(function (h) {
      var li = document.createElement("li");
      var href = h.e.h.replace(/#|$/, "?highlight=" + encodeURIComponent(ts.join(" ")) + "$&");
      li.innerHTML = '<a href="' + escapeHTML(href) + '"><b>' + escapeHTML(h.e.t) + "</b> <small>" +
        escapeHTML(h.e.c) + "</small><span>" + snippet(h.e.x || h.e.t, ts) + "</span></a>";
      results.appendChild(li);
    });
    results.hidden = false;
  }
  function closeResults() { results.hidden = true; }
  input.addEventListener("input", function () { load(function () { search(input.value); }); });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Enter") {
      var first = results.querySelector("a");
      if (first) location.href = first.href;
    } else if (e.key === "ArrowDown") {
      var a = results.querySelector("a");
      if (a) { e.preventDefault(); a.focus(); }
    }
  });
  document.addEventListener("click", function (e) {
    if (!e.target.closest(".search")) closeResults();
  });

  // Arriving from a search: mark the words searched for.
  var hl = new URLSearchParams(location.search).get("highlight");
  if (hl) {
    var words = terms(hl);
    var article = document.querySelector("article");
    var walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
    var nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    var re = new RegExp("(" + words.map(function (t) { return t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }).join("|") + ")", "ig");
    nodes.forEach(function (n) {
      if (!re.test(n.nodeValue) || n.parentNode.closest("svg")) return;
      re.lastIndex = 0;
      var span = document.createElement("span");
      span.innerHTML = escapeHTML(n.nodeValue).replace(re, '<mark class="found">$1</mark>');
      n.parentNode.replaceChild(span, n);
    });
    if (!location.hash) {
      var first = article.querySelector("mark.found");
      if (first) first.scrollIntoView({ block: "center" });
    }
  }
})();

// Citation notes (book/cite.go): a marker's click or tap opens its note, or
// closes it; a click elsewhere or Escape closes it. Hover and keyboard focus
// show a note on a wide screen without this (book.css).
function closeNotes(except) {
  document.querySelectorAll(".cite-ref.open").forEach(function (r) {
    if (r === except) return;
    r.classList.remove("open");
    r.querySelector(".cite-mark").setAttribute("aria-expanded", "false");
  });
}
document.addEventListener("click", function (e) {
  var mark = e.target.closest(".cite-mark");
  var ref = e.target.closest(".cite-ref");
  closeNotes(ref);
  if (!mark) return;
  e.preventDefault(); // the note is already here, beside the marker
  var open = ref.classList.toggle("open");
  mark.setAttribute("aria-expanded", open ? "true" : "false");
});
// A marker is a link acting as a button: Space works it too.
document.addEventListener("keydown", function (e) {
  if (e.key === " " && e.target.classList && e.target.classList.contains("cite-mark")) {
    e.preventDefault();
    e.target.click();
  }
});

// Printing: open every spoiler, so that paper has the whole book.
addEventListener("beforeprint", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
});

// A copy button on every code block, as mdBook readers expect.
document.querySelectorAll("article pre").forEach(function (pre) {
  var b = document.createElement("button");
  b.type = "button";
  b.className = "copy";
  b.textContent = "Copy";
  b.title = "Copy this code";
  b.addEventListener("click", function () {
    var text = pre.querySelector("code") ? pre.querySelector("code").textContent : pre.textContent;
    var done = function () { b.textContent = "Copied"; setTimeout(function () { b.textContent = "Copy"; }, 1500); };
    // The old way works where the clipboard API is refused (some file://
    // pages, some browsers).
    var fallback = function () {
      var ta = document.createElement("textarea");
      ta.value = text;
      document.body.appendChild(ta);
      ta.select();
      try { if (document.execCommand("copy")) done(); } catch (e) {}
      ta.remove();
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, fallback);
    } else {
      fallback();
    }
  });
  pre.classList.add("has-copy");
  pre.appendChild(b);
});
