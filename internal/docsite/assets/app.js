// idemc docs: draws the model graph, the partition heatmaps and the runs
// from window.IDEMC_DOCS (data.js). Plain JavaScript and SVG, no library,
// nothing loaded from a network, so the site works from file://.
(function () {
  "use strict";
  var D = window.IDEMC_DOCS;
  if (!D) { return; }
  var root = document.body.getAttribute("data-root") || ".";
  var SVG = "http://www.w3.org/2000/svg";
  var NODE_H = 36;
  var byName = {};
  D.nodes.forEach(function (n) { byName[n.name] = n; });

  function el(ns, tag, attrs, text) {
    var e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function modelURL(name) { return root + "/models/" + encodeURIComponent(name) + ".html"; }

  // reach walks upstream or downstream from name.
  function reach(name, key) {
    var seen = {}, stack = [name];
    while (stack.length) {
      var n = byName[stack.pop()];
      (n ? n[key] : []).forEach(function (m) { if (!seen[m]) { seen[m] = true; stack.push(m); } });
    }
    return seen;
  }

  function failed(n) {
    if (n.latest && (n.latest.status === "failed" || n.latest.status === "abandoned")) { return true; }
    if (!n.partitions) { return false; }
    return n.partitions.cells.some(function (c) { return c.status === "failed" || c.status === "abandoned"; });
  }

  function drawGraph(svg) {
    var W = D.width, H = D.height;
    var defs = el(SVG, "defs");
    var marker = el(SVG, "marker", { id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" });
    marker.appendChild(el(SVG, "path", { d: "M 0 0 L 10 5 L 0 10 z", "class": "arrow" }));
    defs.appendChild(marker);
    svg.appendChild(defs);
    var world = el(SVG, "g", { id: "world" });
    svg.appendChild(world);
    D.edges.forEach(function (e) {
      world.appendChild(el(SVG, "path", { "class": "edge", d: e.path, "data-edge": e.from + "->" + e.to, "data-from": e.from, "data-to": e.to, "marker-end": "url(#arrow)" }));
    });
    D.nodes.forEach(function (n) {
      var cls = "node kind-" + n.kind + (n.materialized ? " mat-" + n.materialized : "") + (failed(n) ? " failed" : "");
      var g = el(SVG, "g", { "class": cls, "data-node": n.name, transform: "translate(" + n.x + "," + n.y + ")", tabindex: "0" });
      g.appendChild(el(SVG, "rect", { width: n.w, height: NODE_H, rx: 6 }));
      g.appendChild(el(SVG, "text", { x: 12, y: 23 }, n.name));
      g.appendChild(el(SVG, "title", {}, n.name + " (" + (n.kind === "seed" ? "seed" : n.materialized) + ")" + (n.description ? ": " + n.description : "")));
      world.appendChild(g);
    });
    panZoom(svg, W, H);
    highlight(svg);
  }

  // highlight marks, while a node is hovered or focused, its upstream and
  // downstream nodes and the edges between them; the rest is dimmed.
  function highlight(svg) {
    function set(name) {
      var up = name ? reach(name, "upstream") : {}, down = name ? reach(name, "downstream") : {};
      svg.classList.toggle("focus", !!name);
      svg.querySelectorAll(".node").forEach(function (g) {
        var n = g.getAttribute("data-node");
        g.classList.toggle("up", !!up[n]);
        g.classList.toggle("down", !!down[n]);
        g.classList.toggle("self", n === name);
      });
      svg.querySelectorAll(".edge").forEach(function (p) {
        var f = p.getAttribute("data-from"), t = p.getAttribute("data-to");
        p.classList.toggle("up", (up[t] || t === name) && !!up[f]);
        p.classList.toggle("down", (down[f] || f === name) && !!down[t]);
      });
    }
    svg.querySelectorAll(".node").forEach(function (g) {
      var name = g.getAttribute("data-node");
      g.addEventListener("mouseenter", function () { set(name); });
      g.addEventListener("focus", function () { set(name); });
      g.addEventListener("mouseleave", function () { set(null); });
      g.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { location.href = modelURL(name); } });
      g.addEventListener("click", function () { if (!svg.dragged) { location.href = modelURL(name); } });
    });
    // index.html#name opens with that model highlighted (a link to share).
    var focus = decodeURIComponent(location.hash.slice(1));
    if (byName[focus]) { set(focus); }
  }

  // panZoom: the wheel zooms around the pointer, a drag pans; a drag is not
  // a click on the node it ends on.
  function panZoom(svg, W, H) {
    var vb = { x: 0, y: 0, w: W, h: H };
    function apply() { svg.setAttribute("viewBox", [vb.x, vb.y, vb.w, vb.h].join(" ")); }
    function fit() { vb = { x: 0, y: 0, w: W, h: H }; apply(); }
    fit();
    svg.style.height = Math.min(Math.max(H, 200), 640) + "px";
    var fitButton = document.getElementById("fit");
    if (fitButton) { fitButton.addEventListener("click", fit); }
    svg.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var r = svg.getBoundingClientRect();
      var px = vb.x + (ev.clientX - r.left) / r.width * vb.w, py = vb.y + (ev.clientY - r.top) / r.height * vb.h;
      var k = ev.deltaY > 0 ? 1.15 : 1 / 1.15;
      vb.w *= k; vb.h *= k;
      vb.x = px - (ev.clientX - r.left) / r.width * vb.w;
      vb.y = py - (ev.clientY - r.top) / r.height * vb.h;
      apply();
    }, { passive: false });
    var start = null;
    svg.addEventListener("mousedown", function (ev) { start = { x: ev.clientX, y: ev.clientY, vx: vb.x, vy: vb.y }; svg.dragged = false; });
    window.addEventListener("mousemove", function (ev) {
      if (!start) { return; }
      var r = svg.getBoundingClientRect(), dx = ev.clientX - start.x, dy = ev.clientY - start.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) { svg.dragged = true; svg.classList.add("panning"); }
      vb.x = start.vx - dx / r.width * vb.w;
      vb.y = start.vy - dy / r.height * vb.h;
      apply();
    });
    window.addEventListener("mouseup", function () { start = null; svg.classList.remove("panning"); });
  }

  // rowOf groups partition keys into heatmap rows: the days of a month,
  // the hours of a day, the months of a year.
  function rowOf(key, gran) {
    switch (gran) {
      case "hour": return key.slice(0, 10);
      case "day": return key.slice(0, 7);
      case "month": return key.slice(0, 4);
      default: return "";
    }
  }

  function cellTitle(c) {
    var t = c.partition + ": " + c.status + (c.stale ? " (code changed since: the next build reruns it)" : "");
    if (c.rows !== undefined && c.rows !== null) { t += ", " + c.rows + " rows"; }
    if (c.run_id) { t += ", run " + c.run_id + " attempt " + c.attempt; }
    if (c.ended_at) { t += ", ended " + c.ended_at; }
    if (c.error) { t += "\n" + c.error; }
    return t;
  }

  function statusClass(c) { return "cell st-" + (c.stale ? "stale" : c.status); }

  function drawHeatmap(n, box) {
    var sec = el(null, "section", { "class": "heatmap", "data-model": n.name });
    var h = el(null, "h3");
    h.appendChild(el(null, "a", { href: modelURL(n.name) }, n.name));
    var p = n.partitions;
    var counts = Object.keys(p.counts).sort().map(function (k) { return p.counts[k] + " " + k; }).join(", ");
    h.appendChild(el(null, "span", { "class": "counts" }, " " + p.total + " " + p.granularity + " partitions: " + counts));
    sec.appendChild(h);
    if (p.cells.length < p.total) { sec.appendChild(el(null, "p", { "class": "hint" }, "the newest " + p.cells.length + " of " + p.total + " partitions")); }
    var grid = el(null, "table", { "class": "cells" }), row = null, label = null;
    p.cells.forEach(function (c) {
      var r = rowOf(c.partition, p.granularity);
      if (row === null || r !== label) {
        label = r;
        row = el(null, "tr");
        row.appendChild(el(null, "th", {}, r));
        grid.appendChild(row);
      }
      var td = el(null, "td");
      td.appendChild(el(null, "span", { "class": statusClass(c), "data-partition": c.partition, "data-status": c.status, title: cellTitle(c) }, c.partition.slice(r.length).replace(/^[-T]/, "")));
      row.appendChild(td);
    });
    sec.appendChild(grid);
    var detail = el(null, "p", { "class": "detail" }, "point at a partition for its rows, run and error");
    sec.appendChild(detail);
    grid.addEventListener("mouseover", function (ev) {
      var t = ev.target.closest && ev.target.closest(".cell");
      if (t) { detail.textContent = t.getAttribute("title"); }
    });
    box.appendChild(sec);
  }

  function drawLatest(n, box) {
    var c = n.latest;
    var sec = el(null, "section", { "class": "heatmap", "data-model": n.name });
    sec.appendChild(el(null, "span", { "class": statusClass(c), "data-partition": "", "data-status": c.status, title: cellTitle(c) }, c.status));
    sec.appendChild(el(null, "span", { "class": "detail" }, " " + cellTitle(c).replace(/^: /, "")));
    box.appendChild(sec);
  }

  function drawRuns(table) {
    var body = table.querySelector("tbody");
    if (!D.runs.length) {
      var tr = el(null, "tr");
      tr.appendChild(el(null, "td", { colspan: "10" }, D.warehouse_error ? "not read" : "no run yet"));
      body.appendChild(tr);
    }
    D.runs.forEach(function (r) {
      var tr = el(null, "tr", { "data-run": r.run_id, "class": "outcome-" + r.outcome });
      [r.run_id, r.command, r.target, r.as_of, r.started_at, r.ended_at || "", r.outcome, r.succeeded, r.failed, r.skipped].forEach(function (v) {
        tr.appendChild(el(null, "td", {}, String(v)));
      });
      body.appendChild(tr);
    });
  }

  var svg = document.getElementById("dag");
  if (svg) { drawGraph(svg); }
  var box = document.getElementById("heatmaps");
  if (box) {
    var only = document.body.getAttribute("data-model");
    D.nodes.forEach(function (n) {
      if (only && n.name !== only) { return; }
      if (n.partitions) { drawHeatmap(n, box); } else if (only && n.latest) { drawLatest(n, box); }
    });
    if (!only && !box.children.length) {
      box.appendChild(el(null, "p", { "class": "hint" }, D.warehouse_error ? "not read" : "no partitioned model"));
    }
  }
  var runs = document.getElementById("runs");
  if (runs) { drawRuns(runs); }
  document.documentElement.setAttribute("data-drawn", "true");
})();
