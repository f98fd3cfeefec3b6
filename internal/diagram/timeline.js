// Zoom and pan for the timelines of internal/diagram (timeline.go says
// what an SVG carries for it). The book and kata trace's pages both run
// it, on every svg.timeline of the page. It fits each picture to the width
// of its box, adds a toolbar above it (zoom in and out, the whole run, the
// first view, and which stretch of time is shown), and listens: a drag
// pans; the wheel zooms around the pointer once the picture has been
// clicked (or with Ctrl, which is also a trackpad's pinch), so that a
// reader scrolling the page is not caught; two fingers pinch; with the
// picture focused, + and - zoom, ← and → pan and 0 shows the whole run.
// Without it, a picture shows the view it was drawn for.
(function () {
  "use strict";
  var NARROWEST = 1000; // ns: the shortest stretch a view may show
  var UNITS = [[1e9, "s"], [1e6, "ms"], [1e3, "µs"], [1, "ns"]];

  // The labels, as timeline.go writes them (unitOf, decimal, axisLabel,
  // short, rangeText, niceStep): the first view must not change when the
  // script takes over.
  function unitOf(ns) {
    for (var i = 0; i < UNITS.length; i++) if (ns >= UNITS[i][0]) return UNITS[i];
    return UNITS[UNITS.length - 1];
  }
  function decimal(v, unit, dec) {
    var s = (v / unit).toFixed(dec);
    return s.indexOf(".") < 0 ? s : s.replace(/0+$/, "").replace(/\.$/, "");
  }
  function axisLabel(t, step) {
    if (t === 0) return "0";
    var u = unitOf(t), dec = 0;
    for (var q = u[0]; q > step; q /= 10) dec++;
    return decimal(t, u[0], dec) + u[1];
  }
  function short(ns) {
    if (ns === 0) return "0";
    var u = unitOf(ns), v = Math.floor(ns / u[0]);
    return decimal(ns, u[0], v < 10 ? 2 : v < 100 ? 1 : 0) + u[1];
  }
  function rangeText(v0, v1, span) {
    if (v0 === 0 && v1 === span) return "the whole run: " + short(span);
    return "showing " + short(v0) + " to " + short(v1) + " of " + short(span);
  }
  function niceStep(span, n) {
    if (span <= 0) return 1;
    var raw = span / n, p = 1;
    while (p * 10 <= raw) p *= 10;
    for (var m of [1, 2, 5]) if (m * p >= raw) return m * p;
    return 10 * p;
  }

  function setup(svg) {
    var d = svg.dataset;
    var span = +d.span, x0 = +d.x0, pad = +d.pad;
    var first = [+d.v0, +d.v1], view = first.slice();
    var narrowest = Math.min(NARROWEST, span);
    var vb = svg.viewBox.baseVal, W = vb.width, H = vb.height;
    var items = Array.prototype.map.call(svg.querySelectorAll("[data-a]"), function (el) {
      var b = el.dataset.b;
      return {
        el: el, a: +el.dataset.a, b: b === undefined ? 0 : +b, min: +(el.dataset.m || 0.6),
        kind: b === undefined ? "at" : el.tagName.toLowerCase() === "text" ? "label" : "stretch"
      };
    });
    var lanes = svg.querySelectorAll(".tl-lane"), clip = svg.querySelector(".tl-clip");
    var axis = svg.querySelector(".tl-axis"), axisLine = svg.querySelector(".tl-axis-line");
    var tickG = svg.querySelector(".tl-ticks"), rangeEl = svg.querySelector(".tl-range");
    var axisY = +axis.dataset.y;

    var bar = document.createElement("div");
    bar.className = "tl-tools";
    bar.setAttribute("role", "toolbar");
    bar.setAttribute("aria-label", "Zoom the timeline");
    bar.innerHTML =
      '<button type="button" data-do="in" title="Zoom in (+)" aria-label="Zoom in">+</button>' +
      '<button type="button" data-do="out" title="Zoom out (−)" aria-label="Zoom out">−</button>' +
      '<button type="button" data-do="all" title="The whole run (0)">whole run</button>' +
      (first[0] > 0 || first[1] < span ? '<button type="button" data-do="first" title="What the caption is about">first view</button>' : "") +
      '<span class="tl-shown" aria-live="polite"></span>';
    var shown = bar.querySelector(".tl-shown");
    svg.parentNode.insertBefore(bar, svg);
    svg.classList.add("tl-live");
    svg.setAttribute("tabindex", "0");
    svg.setAttribute("aria-label", svg.getAttribute("aria-label") + "; + and − zoom, ← and → pan, 0 shows the whole run");

    function plotW() { return W - x0 - pad; }
    function X(t) { return x0 + (t - view[0]) * plotW() / (view[1] - view[0]); }
    // toX turns a pointer's clientX into the picture's units.
    function toX(clientX) {
      var r = svg.getBoundingClientRect();
      return (clientX - r.left) * W / r.width;
    }

    // fit makes the picture as wide as its box, in units as in pixels, so
    // that its text keeps its size on a phone.
    function fit() {
      var box = Math.floor(svg.parentNode.clientWidth);
      if (!box) return; // not laid out (display: none): keep the width
      var w = Math.max(box, 280);
      if (w === W) return;
      W = w;
      svg.setAttribute("viewBox", "0 0 " + W + " " + H);
      svg.setAttribute("width", W);
      lanes.forEach(function (l) { l.setAttribute("width", plotW()); });
      clip.setAttribute("width", plotW());
      axisLine.setAttribute("x2", x0 + plotW());
      rangeEl.setAttribute("x", W - pad);
    }

    function draw() {
      items.forEach(function (it) {
        var el = it.el;
        if (it.kind === "at") {
          el.setAttribute("transform", "translate(" + X(it.a).toFixed(2) + ",0)");
          return;
        }
        var xa = X(it.a), xb = X(it.b);
        if (it.kind === "label") { // in the middle of what shows of its bar
          xa = Math.max(xa, x0);
          xb = Math.min(xb, x0 + plotW());
          el.setAttribute("x", ((xa + xb) / 2).toFixed(1));
          el.setAttribute("visibility", xb - xa >= 26 ? "visible" : "hidden");
          return;
        }
        el.setAttribute("x", xa.toFixed(2));
        el.setAttribute("width", Math.max(xb - xa, it.min).toFixed(2));
      });
      var step = niceStep(view[1] - view[0], Math.max(4, Math.floor(plotW() / 80))), html = "";
      for (var t = Math.ceil(view[0] / step) * step; t <= view[1]; t += step) {
        var tx = X(t).toFixed(1);
        html += '<line x1="' + tx + '" y1="' + axisY + '" x2="' + tx + '" y2="' + (axisY + 4) + '"/>' +
          '<text x="' + tx + '" y="' + (axisY + 16) + '">' + axisLabel(t, step) + "</text>";
      }
      tickG.innerHTML = html;
      var v0 = Math.round(view[0]), v1 = Math.round(view[1]), text = rangeText(v0, v1, span);
      d.v0 = v0;
      d.v1 = v1;
      rangeEl.textContent = text;
      shown.textContent = text;
    }
    var pending = false;
    function redraw() {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; draw(); });
    }

    // show moves the view to [a, b], kept inside the run and no narrower
    // than narrowest.
    function show(a, b) {
      var w = Math.min(Math.max(b - a, narrowest), span);
      a = Math.min(Math.max(a, 0), span - w);
      view = [a, a + w];
      redraw();
    }
    // zoom scales the view by f (below 1: in) around x, which stays put.
    function zoom(f, x, from) {
      from = from || view;
      var t = from[0] + (x - x0) / plotW() * (from[1] - from[0]);
      show(t - (t - from[0]) * f, t + (from[1] - t) * f);
    }
    function pan(dx, from) {
      from = from || view;
      var dt = dx / plotW() * (from[1] - from[0]);
      show(from[0] + dt, from[1] + dt);
    }

    bar.addEventListener("click", function (e) {
      var b = e.target.closest("button");
      if (!b) return;
      var mid = x0 + plotW() / 2;
      switch (b.dataset.do) {
        case "in": zoom(1 / 1.5, mid); break;
        case "out": zoom(1.5, mid); break;
        case "all": show(0, span); break;
        case "first": show(first[0], first[1]); break;
      }
    });

    svg.addEventListener("keydown", function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      var mid = x0 + plotW() / 2;
      switch (e.key) {
        case "+": case "=": zoom(1 / 1.5, mid); break;
        case "-": case "_": zoom(1.5, mid); break;
        case "ArrowLeft": pan(-plotW() / 5); break;
        case "ArrowRight": pan(plotW() / 5); break;
        case "0": show(0, span); break;
        default: return;
      }
      e.preventDefault(); // the book's ← and → turn pages otherwise
    });

    svg.addEventListener("wheel", function (e) {
      if (!(e.ctrlKey || e.metaKey || document.activeElement === svg)) return;
      e.preventDefault();
      var scale = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      var dx = e.deltaX * scale, dy = e.deltaY * scale;
      if (Math.abs(dx) > Math.abs(dy)) pan(dx * W / svg.getBoundingClientRect().width);
      else zoom(Math.exp(dy * 0.002), toX(e.clientX));
    }, { passive: false });

    // Pointers, by id, in client pixels: one drags, two pinch. Each
    // gesture starts from the view and the pointers as they were when it
    // began.
    var down = new Map(), gesture = null;
    function apart(ps) { return Math.max(Math.hypot(ps[0].x - ps[1].x, ps[0].y - ps[1].y), 10); }
    function begin() {
      var ps = Array.from(down.values());
      if (ps.length === 1) gesture = { x: toX(ps[0].x), view: view.slice() };
      else if (ps.length === 2) gesture = { dist: apart(ps), mid: toX((ps[0].x + ps[1].x) / 2), view: view.slice() };
      else gesture = null;
    }
    svg.addEventListener("pointerdown", function (e) {
      if (e.pointerType === "mouse" && e.button !== 0) return;
      svg.focus({ preventScroll: true });
      down.set(e.pointerId, { x: e.clientX, y: e.clientY });
      svg.setPointerCapture(e.pointerId);
      begin();
    });
    svg.addEventListener("pointermove", function (e) {
      if (!down.has(e.pointerId) || !gesture) return;
      down.set(e.pointerId, { x: e.clientX, y: e.clientY });
      var ps = Array.from(down.values());
      if (ps.length === 1) {
        pan(gesture.x - toX(ps[0].x), gesture.view);
        svg.classList.add("tl-dragging");
      } else if (ps.length === 2) {
        zoom(gesture.dist / apart(ps), gesture.mid, gesture.view);
      }
    });
    function up(e) {
      if (!down.delete(e.pointerId)) return;
      svg.classList.remove("tl-dragging");
      begin();
    }
    svg.addEventListener("pointerup", up);
    svg.addEventListener("pointercancel", up);

    addEventListener("resize", function () { fit(); redraw(); });
    fit();
    draw();
  }

  document.querySelectorAll("svg.timeline[data-span]").forEach(setup);
})();
