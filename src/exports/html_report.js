// The page of `rtrace report --html` (html_report.cpp embeds this file at build time). It reads
// the JSON blob in <script id="report-data"> (what html_report.h describes) and draws the
// summary, the timelines, the flame graph, the tables and the histograms. No network, no
// libraries: the page works from file://.
//
// The URL fragment drives the flame graph and the views (links and the browser tests use it),
// and the page keeps it current as they change:
//   #weight=leaked|peak|allocated|count|temporary&type=NAME&search=REGEX&zoom=FRAME&inverted=1
//   &tree=top-down|bottom-up&function=NAME&short=1
// and sorts a table as a click on a header would: &sort=SECTION.COLUMN (e.g. leaks.3).
"use strict";

// Errors of this page land in the page itself (and the console), so that a headless browser's
// DOM dump shows them.
const pageErrors = [];
function recordError(message) {
  pageErrors.push(String(message));
  let box = document.getElementById("errors");
  if (box === null) {
    box = document.createElement("pre");
    box.id = "errors";
    document.body.append(box);
  }
  box.hidden = false;
  box.textContent = pageErrors.join("\n");
}
window.addEventListener("error", (event) => recordError(event.message));
window.addEventListener("unhandledrejection", (event) => recordError(event.reason));

// The order of the data's weights.
const WEIGHTS = ["allocated", "leaked", "peak", "count", "temporary"];
const WEIGHT_TITLES = {
  leaked: "leaked bytes",
  peak: "bytes alive at the peak",
  allocated: "bytes allocated",
  count: "allocations",
  temporary: "temporary allocations",
};
// Per node: its depth, its name's index, then each weight.
const NODE_WIDTH = 2 + WEIGHTS.length;
const SVG_NS = "http://www.w3.org/2000/svg";

// ---- Small helpers -------------------------------------------------------------------------

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "text") {
      node.textContent = value;
    } else {
      node.setAttribute(name, value);
    }
  }
  for (const child of children) {
    node.append(child);
  }
  return node;
}

function svgElement(tag, attributes = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) {
    node.setAttribute(name, value);
  }
  return node;
}

function humanBytes(bytes) {
  const units = ["KiB", "MiB", "GiB", "TiB", "PiB"];
  if (Math.abs(bytes) < 1024) {
    return bytes + " B";
  }
  let value = bytes / 1024;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit + 1 < units.length) {
    value /= 1024;
    unit += 1;
  }
  return value.toFixed(1) + " " + units[unit];
}

function humanCount(count) {
  return Number(count).toLocaleString("en-US");
}

function humanWeight(value, weight) {
  if (weight === "count") {
    return humanCount(value) + " allocations";
  }
  return weight === "temporary" ? humanCount(value) + " temporary" : humanBytes(value);
}

function humanDuration(ns) {
  if (ns < 1e3) {
    return ns + " ns";
  }
  if (ns < 1e6) {
    return (ns / 1e3).toFixed(1) + " µs";
  }
  if (ns < 1e9) {
    return (ns / 1e6).toFixed(1) + " ms";
  }
  return (ns / 1e9).toFixed(2) + " s";
}

function section(id, title, ...children) {
  return element("section", { id }, element("h2", { text: title }), ...children);
}

// ---- Summary -------------------------------------------------------------------------------

function summarySection(data) {
  const columns = [
    ["type", "resource", (t) => t.type],
    ["calls", "calls", (t) => t.calls],
    ["allocations", "allocations", (t) => t.allocations],
    ["bytes", "allocated", (t) => t.bytes_allocated],
    ["count", "releases", (t) => t.releases],
    ["count", "null releases", (t) => t.null_releases],
    ["count", "temporary", (t) => t.temporary],
    ["count", "leaked blocks", (t) => t.leaked_blocks],
    ["bytes", "leaked", (t) => t.leaked_bytes],
    ["bytes", "peak", (t) => t.peak_bytes],
    ["count", "peak at call", (t) => t.peak_call],
  ];
  const table = sortableTable(columns, data.types, "summary-table");
  const figures = element("div", { class: "figures" });
  for (const t of data.types) {
    if (t.allocations === 0) {
      continue;
    }
    if (t.transfers) {  // copies: nothing is held, so nothing leaks and there is no peak
      figures.append(figure(t.type + " transferred", humanBytes(t.bytes_allocated),
        humanCount(t.allocations) + " transfers"));
      continue;
    }
    figures.append(
      figure(t.type + " " + data.leaks_are, humanBytes(t.leaked_bytes),
        humanCount(t.leaked_blocks) + " blocks"),
      figure(t.type + " peak", humanBytes(t.peak_bytes), "at call " + humanCount(t.peak_call)),
      figure(t.type + " allocated", humanBytes(t.bytes_allocated),
        humanCount(t.allocations) + " allocations"),
    );
  }
  const children = [...processLines(data), figures, table];
  if (data.suppressed.blocks > 0) {
    children.push(element("p", {
      text: "Suppressed: " + humanCount(data.suppressed.blocks) + " blocks, " +
        humanBytes(data.suppressed.bytes) + ".",
    }));
  }
  return section("summary", "Summary", ...children);
}

// The command line, how the trace ended, the peak RSS; a warning when the trace broke off.
function processLines(data) {
  const lines = [];
  if (data.incomplete) {
    lines.push(element("p", { class: "warning", text: data.incomplete_message }));
  }
  if (data.command_line_shell !== null) {
    lines.push(element("p", {
      text: "Command line: " + data.command_line_shell + (data.command_line_cut ? " ... (cut)" : ""),
    }));
  }
  if (data.trace_end !== null) {
    lines.push(element("p", {
      text: "Trace ended by: " + data.trace_end.description + ". Peak RSS: " +
        humanBytes(data.trace_end.peak_rss_bytes) + " (RSS at the end: " +
        humanBytes(data.trace_end.rss_bytes) + ").",
    }));
  }
  return lines;
}

function figure(label, value, detail) {
  return element("div", { class: "figure" },
    element("div", { class: "figure-value", text: value }),
    element("div", { class: "figure-label", text: label }),
    element("div", { class: "figure-detail", text: detail }));
}

// ---- Sortable tables -----------------------------------------------------------------------

// columns: [kind, title, value of a row]; kind "bytes" and "count" are numbers (shown human),
// "type" and "text" strings, "backtrace" a list of frames.
function sortableTable(columns, rows, className) {
  const table = element("table", { class: "sortable " + className });
  const head = element("tr");
  columns.forEach(([kind, title], column) => {
    const th = element("th", { text: title, "data-kind": kind, title: "Sort by " + title });
    if (kind !== "backtrace") {
      th.addEventListener("click", () => sortBy(table, column));
    }
    head.append(th);
  });
  table.append(element("thead", {}, head));
  const body = element("tbody");
  for (const row of rows) {
    const tr = element("tr");
    for (const [kind, , value] of columns) {
      tr.append(cell(kind, value(row)));
    }
    body.append(tr);
  }
  if (rows.length === 0) {
    body.append(element("tr", {}, element("td", { colspan: columns.length, text: "none" })));
  }
  table.append(body);
  return table;
}

function cell(kind, value) {
  if (value === null) {
    return element("td", { text: "?", title: "not known", "data-value": -1 });
  }
  if (kind === "backtrace") {
    const list = element("ol", { class: "backtrace" });
    for (const frame of value) {
      list.append(element("li", { text: frame }));
    }
    return element("td", {}, list);
  }
  const numeric = kind === "bytes" || kind === "count" || kind === "allocations" ||
    kind === "growth";
  let text = String(value);
  if (kind === "bytes") {
    text = humanBytes(value);
  } else if (kind === "growth") {
    text = (value > 0 ? "+" : "") + humanBytes(value);
  } else if (numeric) {
    text = humanCount(value);
  }
  const td = element("td", { text, "data-value": value });
  if (numeric) {
    td.className = "number";
    td.title = String(value);
  }
  return td;
}

// Clicking a header sorts by it, largest first; clicking it again reverses.
function sortBy(table, column) {
  const th = table.tHead.rows[0].cells[column];
  const descending = th.getAttribute("aria-sort") !== "descending";
  for (const other of table.tHead.rows[0].cells) {
    other.removeAttribute("aria-sort");
  }
  th.setAttribute("aria-sort", descending ? "descending" : "ascending");
  const numeric = th.getAttribute("data-kind") !== "type" && th.getAttribute("data-kind") !== "text";
  const body = table.tBodies[0];
  const rows = Array.from(body.rows).filter((row) => row.cells.length > 1);
  const key = (row) => row.cells[column].getAttribute("data-value");
  rows.sort((a, b) => {
    const order = numeric ? Number(key(a)) - Number(key(b)) : key(a).localeCompare(key(b));
    return descending ? -order : order;
  });
  body.append(...rows);
}

const SITE_COLUMNS = {
  type: ["type", "resource", (s) => s.type],
  leaked: ["bytes", "leaked", (s) => s.leaked_bytes],
  leakedBlocks: ["count", "blocks", (s) => s.leaked_blocks],
  allocations: ["count", "allocations", (s) => s.allocations],
  allocated: ["bytes", "allocated", (s) => s.bytes_allocated],
  peak: ["bytes", "at peak", (s) => s.peak_bytes],
  temporary: ["count", "temporary", (s) => s.temporary],
  grown: ["bytes", "grown", (s) => s.grown_bytes],
  grownBlocks: ["count", "blocks", (s) => s.grown_blocks],
  backtrace: ["backtrace", "backtrace (innermost first)", (s) => s.backtrace],
};

function siteSection(id, title, sites, columnNames, note) {
  const columns = columnNames.map((name) => SITE_COLUMNS[name]);
  return section(id, title, element("p", { class: "note", text: note }),
    sortableTable(columns, sites, "sites"));
}

// ---- Timelines -----------------------------------------------------------------------------

// The names of the trace's types of transfers (reports/resource_unit.h): copies, which hold
// nothing.
function transferTypes(data) {
  return new Set(data.types.filter((t) => t.transfers).map((t) => t.type));
}

// The live bytes of a type of transfers are each copy's size for an instant: no timeline.
function timelineSection(data) {
  const transfers = transferTypes(data);
  const container = element("div", { id: "timelines" });
  for (const timeline of data.timelines) {
    if (!transfers.has(timeline.type)) {
      container.append(timelineFigure(timeline));
    }
  }
  if (container.childElementCount === 0) {
    container.append(element("p", {
      text: transfers.size > 0 ? "Nothing was held: the trace has transfers only." :
        "Nothing was allocated.",
    }));
  }
  return section("timeline", "Timeline", element("p", {
    class: "note",
    text: "Live bytes and live blocks of each resource type over the trace (time from the " +
      "calls' timestamps, else call numbers); the peak is marked.",
  }), container);
}

function timelineFigure(timeline) {
  const points = [];
  for (let i = 0; i < timeline.points.length; i += 4) {
    points.push({
      time: timeline.points[i], call: timeline.points[i + 1],
      bytes: timeline.points[i + 2], blocks: timeline.points[i + 3],
    });
  }
  const timed = points.length > 1 && points[points.length - 1].time > points[0].time;
  const x = timed ? (p) => p.time : (p) => p.call;
  const peak = {
    time: timeline.peak[0], call: timeline.peak[1], bytes: timeline.peak[2], blocks: timeline.peak[3],
  };
  const figureNode = element("figure", { class: "timeline", "data-type": timeline.type });
  figureNode.append(element("figcaption", {
    text: timeline.type + ": peak " + humanBytes(peak.bytes) + " in " + humanCount(peak.blocks) +
      " blocks at call " + humanCount(peak.call) + (timed ? " (" + humanDuration(peak.time) + ")" : ""),
  }));
  figureNode.append(
    chart(points, x, (p) => p.bytes, humanBytes, "live bytes", peak, timed),
    chart(points, x, (p) => p.blocks, humanCount, "live blocks", peak, timed));
  return figureNode;
}

// One line chart: the value of `y` over `x`, a vertical line and a dot at the peak.
function chart(points, x, y, format, label, peak, timed) {
  const width = 960;
  const height = 160;
  const left = 70;
  const bottom = 22;
  const svg = svgElement("svg", {
    class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label,
  });
  const minX = points.length > 0 ? x(points[0]) : 0;
  const maxX = Math.max(points.length > 0 ? x(points[points.length - 1]) : 1, minX + 1);
  const maxY = Math.max(1, ...points.map(y), y(peak));
  const sx = (value) => left + (value - minX) / (maxX - minX) * (width - left - 10);
  const sy = (value) => 8 + (1 - value / maxY) * (height - bottom - 8);
  // A step line: a value holds until the next change.
  let path = "";
  points.forEach((p, i) => {
    const px = sx(x(p)).toFixed(1);
    const py = sy(y(p)).toFixed(1);
    path += i === 0 ? `M${px},${py}` : `H${px}V${py}`;
  });
  svg.append(svgElement("path", { class: "area", d: path + `V${sy(0)}H${sx(minX)}Z` }));
  svg.append(svgElement("path", { class: "line", d: path }));
  for (const [value, text] of [[0, format(0)], [maxY, format(maxY)]]) {
    const t = svgElement("text", { x: left - 6, y: sy(value) + 4, class: "axis", "text-anchor": "end" });
    t.textContent = text;
    svg.append(t);
  }
  const axisLabel = svgElement("text", { x: width - 10, y: height - 6, class: "axis", "text-anchor": "end" });
  axisLabel.textContent = timed ? humanDuration(maxX - minX) : "call " + humanCount(maxX);
  svg.append(axisLabel);
  const name = svgElement("text", { x: left + 6, y: 20, class: "chart-label" });
  name.textContent = label;
  svg.append(name);
  const peakX = sx(x(peak));
  svg.append(svgElement("line", { class: "peak-line", x1: peakX, x2: peakX, y1: 8, y2: height - bottom }));
  const dot = svgElement("circle", { class: "peak", cx: peakX, cy: sy(y(peak)), r: 4 });
  const title = svgElement("title");
  title.textContent = "peak: " + format(y(peak)) + " at call " + humanCount(peak.call);
  dot.append(title);
  svg.append(dot);
  // Hovering shows the value at that moment.
  const readout = svgElement("text", { x: width - 10, y: 20, class: "chart-readout", "text-anchor": "end" });
  svg.append(readout);
  svg.addEventListener("mousemove", (event) => {
    const box = svg.getBoundingClientRect();
    const at = minX + ((event.clientX - box.left) / box.width * width - left) /
      (width - left - 10) * (maxX - minX);
    let shown = null;
    for (const p of points) {
      if (x(p) > at) {
        break;
      }
      shown = p;
    }
    readout.textContent = shown === null ? "" :
      format(y(shown)) + " after call " + humanCount(shown.call);
  });
  return svg;
}

// ---- Flame graph ---------------------------------------------------------------------------

// One type's tree, as flat arrays in depth-first order.
class FlameTree {
  constructor(tree, names) {
    this.type = tree.type;
    const n = tree.nodes.length / NODE_WIDTH;
    this.depth = new Int32Array(n);
    this.nameId = new Int32Array(n);
    this.name = new Array(n);
    this.values = WEIGHTS.map(() => new Float64Array(n));
    this.parent = new Int32Array(n);
    this.end = new Int32Array(n); // one past the node's last descendant
    const path = [];
    for (let i = 0; i < n; i += 1) {
      const d = tree.nodes[NODE_WIDTH * i];
      this.depth[i] = d;
      this.nameId[i] = tree.nodes[NODE_WIDTH * i + 1];
      this.name[i] = names[this.nameId[i]];
      WEIGHTS.forEach((_, w) => { this.values[w][i] = tree.nodes[NODE_WIDTH * i + 2 + w]; });
      while (path.length > d) {
        this.end[path.pop()] = i;
      }
      this.parent[i] = d === 0 ? -1 : path[d - 1];
      path.push(i);
    }
    while (path.length > 0) {
      this.end[path.pop()] = n;
    }
    this.size = n;
  }

  // Each node's start (in weight units) within the whole tree, for weight index `w`.
  starts(w) {
    const values = this.values[w];
    const start = new Float64Array(this.size);
    const next = [0];
    for (let i = 0; i < this.size; i += 1) {
      const d = this.depth[i];
      start[i] = next[d];
      next[d] += values[i];
      next[d + 1] = start[i];
    }
    return start;
  }
}

class FlameGraph {
  constructor(data, root) {
    this.names = data.flame.names;
    this.trees = data.flame.trees.map((tree) => new FlameTree(tree, data.flame.names));
    this.inverted = new Map(); // by top-down tree: its inverted tree, made at first use
    this.root = root;
    this.tree = this.trees[0] || null;
    this.upsideDown = false; // the inverted graph: allocating functions on top, callers below
    this.listeners = []; // called after a change of type or weight
    this.openFunction = () => {};
    // Transfers never leak: what they moved is what a reader of their graph looks for.
    this.weight = this.tree && transferTypes(data).has(this.tree.type) ? "allocated" : "leaked";
    this.zoomed = 0;
    this.pattern = null;
    this.build();
  }

  build() {
    const controls = element("div", { class: "flame-controls" });
    if (this.trees.length > 1) {
      const types = element("select", { id: "flame-type", "aria-label": "resource type" });
      for (const tree of this.trees) {
        types.append(element("option", { value: tree.type, text: tree.type }));
      }
      types.addEventListener("change", () => this.setType(types.value));
      controls.append(element("label", { text: "Resource " }, types));
    }
    const weights = element("span", { class: "weights", role: "radiogroup" });
    for (const weight of ["leaked", "peak", "allocated", "count", "temporary"]) {
      const button = element("button", {
        type: "button", "data-weight": weight, text: WEIGHT_TITLES[weight],
      });
      button.addEventListener("click", () => this.setWeight(weight));
      weights.append(button);
    }
    this.search = element("input", {
      id: "flame-search", type: "search", placeholder: "Search frames (regular expression)",
    });
    this.search.addEventListener("input", () => this.setSearch(this.search.value));
    this.reset = element("button", { id: "flame-reset", type: "button", text: "Reset zoom" });
    this.reset.addEventListener("click", () => this.zoom(0));
    this.matched = element("span", { id: "flame-matched" });
    this.invert = element("button", {
      id: "flame-invert", type: "button", text: "Inverted", "aria-pressed": "false",
      title: "Allocating functions on top, their callers below",
    });
    this.invert.addEventListener("click", () => this.setInverted(!this.upsideDown));
    this.selected = element("a", { id: "flame-function", class: "fn", href: "#", hidden: "" });
    controls.append(weights, this.invert, this.search, this.reset, this.matched, this.selected);
    this.frames = element("div", { id: "flame", class: "flame" });
    this.details = element("div", { id: "flame-details", class: "flame-details", text: " " });
    // One listener for all frames (there may be thousands).
    this.frames.addEventListener("click", (event) => {
      const frame = event.target.closest(".frame");
      if (frame !== null) {
        this.zoom(Number(frame.dataset.node));
      }
    });
    this.frames.addEventListener("mouseover", (event) => {
      const frame = event.target.closest(".frame");
      this.details.textContent = frame === null ? " " : frame.title.replace("\n", ": ");
    });
    this.root.append(controls, this.frames, this.details);
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        this.zoom(0);
      }
    });
  }

  setType(type) {
    this.tree = this.trees.find((tree) => tree.type === type) || this.tree;
    this.zoomed = 0;
    this.render();
    this.changed();
  }

  setWeight(weight) {
    this.weight = WEIGHTS.includes(weight) ? weight : this.weight;
    if (this.tree !== null && this.value(this.zoomed) === 0) {
      this.zoomed = 0;
    }
    this.render();
    this.changed();
  }

  setInverted(inverted) {
    this.upsideDown = inverted;
    this.zoomed = 0;
    this.render();
    updateFragment();
  }

  changed() {
    for (const listener of this.listeners) {
      listener();
    }
    updateFragment();
  }

  // The bottom-up tree of the type shown (views.js), made once per type.
  invertedTree() {
    if (this.tree === null) {
      return null;
    }
    if (!this.inverted.has(this.tree)) {
      this.inverted.set(this.tree, new FlameTree(invertedNodes(this.tree), this.names));
    }
    return this.inverted.get(this.tree);
  }

  // The tree the graph draws: top-down, or inverted.
  shown() {
    return this.upsideDown ? this.invertedTree() : this.tree;
  }

  setSearch(pattern) {
    try {
      this.pattern = pattern === "" ? null : new RegExp(pattern);
      this.search.setCustomValidity("");
    } catch (error) {
      this.pattern = null;
      this.search.setCustomValidity(error.message);
    }
    this.render();
  }

  // Zooms into the first frame called `name`, depth first; false when there is none.
  zoomTo(name) {
    const tree = this.shown();
    for (let i = 0; tree !== null && i < tree.size; i += 1) {
      if (tree.name[i] === name && this.value(i) > 0) {
        this.zoom(i);
        return true;
      }
    }
    return false;
  }

  zoom(node) {
    this.zoomed = node;
    this.render();
    updateFragment();
  }

  value(node) {
    return this.shown().values[WEIGHTS.indexOf(this.weight)][node];
  }

  render() {
    for (const button of this.root.querySelectorAll("button[data-weight]")) {
      button.setAttribute("aria-pressed", String(button.dataset.weight === this.weight));
    }
    this.frames.textContent = "";
    this.frames.dataset.weight = this.weight;
    this.invert.setAttribute("aria-pressed", String(this.upsideDown));
    this.selected.hidden = true;
    if (this.tree === null || this.value(0) === 0) {
      this.frames.dataset.zoom = "";
      this.frames.dataset.inverted = String(this.upsideDown);
      this.frames.append(element("p", {
        class: "empty", text: "No " + WEIGHT_TITLES[this.weight] + " in this trace.",
      }));
      this.matched.textContent = "";
      this.frames.style.height = "";
      return;
    }
    const tree = this.shown();
    const w = WEIGHTS.indexOf(this.weight);
    const start = tree.starts(w);
    const values = tree.values[w];
    const z = this.zoomed;
    const from = start[z];
    const span = values[z];
    const total = values[0];
    const rowHeight = 18;
    // The window's width, not the graph's: reading an element's size would force a layout of
    // the whole page here.
    const pixels = Math.max(Math.min(window.innerWidth, 1200), 600);
    const fragment = document.createDocumentFragment();
    let deepest = 0;
    const draw = (node, left, width, depth, ancestor) => {
      const share = (100 * values[node] / total).toFixed(2);
      const label = tree.name[node];
      const div = element("div", {
        class: "frame" + (ancestor ? " ancestor" : ""),
        "data-name": label,
        title: `${label}\n${humanWeight(values[node], this.weight)} (${share}% of all)`,
        style: `left:${(100 * left).toFixed(4)}%;width:${(100 * width).toFixed(4)}%;` +
          `top:${depth * rowHeight}px;background:${colourOf(label)}`,
      }, element("span", { text: nameDisplay.of(label) }));
      if (this.pattern !== null && this.pattern.test(label)) {
        div.classList.add("match");
      }
      div.dataset.node = node;
      fragment.append(div);
      deepest = Math.max(deepest, depth);
    };
    // The zoomed frame's callers, full width and dimmed, above it.
    const callers = [];
    for (let p = tree.parent[z]; p >= 0; p = tree.parent[p]) {
      callers.unshift(p);
    }
    callers.forEach((node, depth) => draw(node, 0, 1, depth, true));
    const base = callers.length;
    for (let i = z; i < tree.end[z]; i += 1) {
      const width = values[i] / span;
      if (width * pixels < 0.5) {
        i = tree.end[i] - 1; // too thin to see, and so is everything it calls
        continue;
      }
      draw(i, (start[i] - from) / span, width, base + tree.depth[i] - tree.depth[z], false);
    }
    this.frames.append(fragment);
    this.frames.style.height = (deepest + 1) * rowHeight + "px";
    this.frames.dataset.zoom = z === 0 ? "" : tree.name[z];
    this.frames.dataset.inverted = String(this.upsideDown);
    this.reset.disabled = z === 0;
    if (z !== 0) {
      // The zoomed frame's function, one click from its callers and callees.
      this.selected.hidden = false;
      this.selected.dataset.function = tree.name[z];
      this.selected.textContent = "Callers and callees of " + nameDisplay.of(tree.name[z]);
    }
    this.matched.textContent = this.pattern === null ? "" :
      "Matched: " + (100 * this.matchedShare(z, values) / span).toFixed(1) + "%";
  }

  // What the matching frames under `z` weigh; a match inside a match counts once.
  matchedShare(z, values) {
    const tree = this.shown();
    let sum = 0;
    for (let i = z; i < tree.end[z]; i += 1) {
      if (this.pattern.test(tree.name[i])) {
        sum += values[i];
        i = tree.end[i] - 1;
      }
    }
    return sum;
  }
}

// A warm colour that depends only on the name, so a function keeps its colour when zooming.
function colourOf(name) {
  let hash = 0;
  for (let i = 0; i < name.length; i += 1) {
    hash = (hash * 31 + name.charCodeAt(i)) >>> 0;
  }
  return `rgb(${205 + hash % 50},${(hash >>> 8) % 230},${(hash >>> 16) % 55})`;
}

function flameSection(data) {
  const root = element("div", { id: "flame-graph" });
  const graph = new FlameGraph(data, root);
  const parts = [element("p", {
    class: "note",
    text: "Callers on top, what they call below (Inverted: the allocating functions on top, " +
      "their callers below); a frame is as wide as what was allocated under it. Click a frame " +
      "to zoom, Escape or Reset zoom to go back. The weight and resource chosen here apply to " +
      "the call trees and the callers and callees too.",
  })];
  const pruned = data.flame.pruned;
  if (pruned) {
    // The page leaves out the frames too small to see (rtrace report --html-min-share).
    parts.push(element("p", {
      id: "flame-pruned",
      class: "note",
      text: `${pruned.nodes} frame(s) holding less than ${100 * pruned.min_share} % of every ` +
        "weight of their type are left out (rtrace report --html-min-share SHARE; 0 keeps " +
        "them all).",
    }));
  }
  const node = section("flame-section", "Flame graph", ...parts, root);
  return { node, graph };
}

// ---- Histograms ----------------------------------------------------------------------------

function histogramSection(data) {
  const container = element("div", { id: "histograms" });
  for (const t of data.types) {
    if (t.histogram.length === 0) {
      continue;
    }
    const largest = Math.max(...t.histogram.map((bucket) => bucket[2]));
    const table = element("table", { class: "histogram", "data-type": t.type });
    table.append(element("caption", { text: t.type + ": allocations by size" }));
    for (const [from, to, count] of t.histogram) {
      const range = from === to ? humanBytes(from) : humanBytes(from) + " – " + humanBytes(to);
      const bar = element("div", { class: "bar", style: `width:${(100 * count / largest).toFixed(2)}%` });
      table.append(element("tr", {},
        element("th", { text: range }),
        element("td", { class: "number", text: humanCount(count) }),
        element("td", { class: "bar-cell" }, bar)));
    }
    container.append(table);
  }
  return section("histogram", "Size histogram", container);
}

// ---- Pages (the pagemap module's attachments) ---------------------------------------------

// Addresses as the text report writes them. User-space addresses are below 2^47: exact in a
// JavaScript number.
function hexAddress(value) {
  return value.toString(16).padStart(16, "0");
}

function percentOf(part, whole) {
  return whole === 0 ? "0%" : (100 * part / whole).toFixed(1) + "%";
}

// Per private writable mapping when tracing stopped: size, resident pages, resident pages
// holding only zero bytes (null: the .zeropages file was missing); then the totals and what was
// missing or damaged among the attachments.
function pagemapSection(pagemap) {
  const pageSize = pagemap.page_size;
  const table = sortableTable([
    ["text", "mapping", (m) => hexAddress(m.start) + "-" + hexAddress(m.end)],
    ["text", "mode", (m) => m.mode === "" ? "?" : m.mode],
    ["bytes", "size", (m) => m.pages * pageSize],
    ["count", "pages", (m) => m.pages],
    ["count", "resident", (m) => m.resident],
    ["count", "all-zero", (m) => m.all_zero],
    ["text", "path", (m) => m.path === "" ? "[anonymous]" : m.path],
  ], pagemap.mappings, "pagemap-table");
  const sum = (key) => pagemap.mappings.reduce((total, m) => total + (m[key] || 0), 0);
  const pages = sum("pages");
  const resident = sum("resident");
  const zeroKnown = pagemap.mappings.every((m) => m.all_zero !== null);
  const zero = sum("all_zero");
  const figures = element("div", { class: "figures" },
    figure("mapped", humanBytes(pages * pageSize), humanCount(pagemap.mappings.length) +
      " mappings, " + humanCount(pages) + " pages"),
    figure("resident", humanBytes(resident * pageSize), humanCount(resident) + " pages"),
    figure("all-zero", zeroKnown ? humanBytes(zero * pageSize) : "?",
      zeroKnown ? humanCount(zero) + " pages, " + percentOf(zero, resident) + " of the resident"
        : "not known"));
  const children = [element("p", {
    class: "note",
    text: "Private writable mappings when tracing stopped; all-zero: resident pages holding " +
      "only zero bytes, allocated and never written or cleared.",
  })];
  if (pagemap.problems.length > 0) {
    const problems = element("ul", { class: "problems" });
    for (const problem of pagemap.problems) {
      problems.append(element("li", { class: "warning", text: problem }));
    }
    children.push(problems);
  }
  children.push(figures, table);
  return section("pages", "Pages", ...children);
}

// ---- Diff ----------------------------------------------------------------------------------

function diffSection(diff) {
  const growth = (index) => (row) => row.growth[index];
  const totals = sortableTable([
    ["type", "resource", (t) => t.type],
    ["count", "allocations", growth(0)],
    ["growth", "allocated", growth(1)],
    ["count", "leaked blocks", growth(2)],
    ["growth", "leaked", growth(3)],
    ["growth", "peak", growth(4)],
  ], diff.types, "diff-types");
  const sites = sortableTable([
    ["type", "resource", (s) => s.type],
    ["growth", "leaked", growth(3)],
    ["count", "leaked blocks", growth(2)],
    ["growth", "allocated", growth(1)],
    ["count", "allocations", growth(0)],
    ["backtrace", "backtrace (innermost first)", (s) => s.backtrace],
  ], diff.sites, "diff-sites");
  return section("diff", "Growth from the baseline",
    element("p", { class: "note", text: "What grew from the --diff trace to this one, per backtrace." }),
    totals, sites);
}

// ---- Sections without code of their own ----------------------------------------------------

// A section of the report's table (reports/section_table.h) that gives the page a table to draw:
// columns as [kind, heading], rows as values in the order of the columns.
function tableSection(table) {
  const columns = table.columns.map(([kind, heading], index) =>
    [kind, heading, (row) => row[index]]);
  return section(table.id, table.title, element("p", { class: "note", text: table.note }),
    sortableTable(columns, table.rows, "section-table"));
}

// ---- The page ------------------------------------------------------------------------------

// The page's views, once drawn: the flame graph, the call trees, the callers and callees.
let views = null;
let applyingFragment = false;

// Writes the views' state into the URL fragment (without a new history entry), so that a link
// copied from the address bar opens the page as it is; parameters of others (sort) are kept.
function updateFragment() {
  if (views === null || applyingFragment) {
    return;
  }
  const parameters = new URLSearchParams(window.location.hash.slice(1));
  const graph = views.flame;
  const set = (key, value) => {
    if (value === null || value === "") {
      parameters.delete(key);
    } else {
      parameters.set(key, value);
    }
  };
  set("weight", graph.weight);
  set("type", graph.trees.length > 1 && graph.tree !== null ? graph.tree.type : null);
  set("search", graph.pattern === null ? null : graph.search.value);
  set("zoom", graph.zoomed === 0 ? null : graph.shown().name[graph.zoomed]);
  set("inverted", graph.upsideDown ? "1" : null);
  set("tree", views.tree.mode === "top-down" ? null : views.tree.mode);
  set("function", views.callers.name);
  set("short", nameDisplay.short ? "1" : null);
  const hash = parameters.toString();
  history.replaceState(null, "", hash === "" ? window.location.pathname + window.location.search
    : "#" + hash);
}

function applyFragment(graph) {
  applyingFragment = true;
  try {
    applyParameters(graph, new URLSearchParams(window.location.hash.slice(1)));
  } finally {
    applyingFragment = false;
  }
  updateFragment();
}

function applyParameters(graph, parameters) {
  if (parameters.has("short")) {
    setShortNames(parameters.get("short") === "1");
  }
  if (parameters.has("inverted")) {
    graph.setInverted(parameters.get("inverted") === "1");
  }
  if (parameters.has("tree")) {
    views.tree.setMode(parameters.get("tree"));
  }
  if (parameters.has("function")) {
    views.callers.open(parameters.get("function"));
  }
  if (parameters.has("type")) {
    graph.setType(parameters.get("type"));
  }
  if (parameters.has("weight")) {
    graph.setWeight(parameters.get("weight"));
  }
  if (parameters.has("search")) {
    graph.search.value = parameters.get("search");
    graph.setSearch(graph.search.value);
  }
  if (parameters.has("zoom") && !graph.zoomTo(parameters.get("zoom"))) {
    recordError("no frame called " + parameters.get("zoom") + " to zoom into");
  }
  if (parameters.has("sort")) {
    const [sectionId, column] = parameters.get("sort").split(".");
    const table = document.querySelector(`#${CSS.escape(sectionId)} table.sortable`);
    if (table === null || !(Number(column) < table.tHead.rows[0].cells.length)) {
      recordError("no table column " + parameters.get("sort") + " to sort by");
    } else {
      sortBy(table, Number(column));
    }
  }
}

// The switch that shortens template arguments in every name shown.
function setShortNames(short) {
  nameDisplay.short = short;
  document.getElementById("short-names").checked = short;
  if (views !== null) {
    views.flame.render();
    views.tree.render();
    views.callers.render();
    updateFragment();
  }
}

function viewSections(graph) {
  const treeRoot = element("div", { id: "call-trees" });
  const callersRoot = element("div");
  const callers = new CallerCalleeView(graph, callersRoot);
  const openFunction = (name) => {
    callers.open(name);
    updateFragment();
  };
  const tree = new CallTreeView(graph, treeRoot, openFunction);
  graph.openFunction = openFunction;
  graph.listeners.push(() => tree.render(), () => callers.render());
  graph.selected.addEventListener("click", (event) => {
    event.preventDefault();
    openFunction(graph.selected.dataset.function);
  });
  callersRoot.addEventListener("click", () => updateFragment());
  return {
    tree, callers,
    nodes: [
      section("trees", "Call trees", element("p", {
        class: "note",
        text: "Top-down: callers first; bottom-up: the functions that allocated first, their " +
          "callers beneath. Click a row's arrow to expand it, a heading to sort, a function to " +
          "see its callers and callees.",
      }), treeRoot),
      section("callers-callees", "Callers and callees", element("p", {
        class: "note",
        text: "The function chosen, what called it above (with what it cost through each " +
          "caller) and what it called below (with what each cost under it). Click a name to " +
          "move to it.",
      }), callersRoot),
    ],
  };
}

function main() {
  const scriptStart = performance.now();
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const report = document.getElementById("report");
  const sections = [];
  sections.push(summarySection(data));
  sections.push(timelineSection(data));
  const flame = flameSection(data);
  sections.push(flame.node);
  const analysis = viewSections(flame.graph);
  sections.push(...analysis.nodes);
  const toggled = data.leaks_are !== "leaked";
  sections.push(siteSection("leaks", toggled ? "Alive when tracing stopped" : "Leaks", data.leaks,
    ["type", "leaked", "leakedBlocks", "allocations", "backtrace"],
    toggled
      ? "What was allocated when tracing was toggled off (not known to be leaks: the program went on), by backtrace, most bytes first."
      : "What was still allocated at the end, by backtrace, most bytes first."));
  sections.push(siteSection("peak", "At the peak", data.peak,
    ["type", "peak", "allocations", "allocated", "backtrace"],
    "What each resource type held when it reached its peak."));
  sections.push(siteSection("hot", "Hot allocation sites", data.hot,
    ["type", "allocations", "allocated", "temporary", "leaked", "backtrace"],
    "The backtraces that allocate most often."));
  sections.push(siteSection("temporary", "Temporary allocations", data.temporary,
    ["type", "temporary", "allocations", "allocated", "backtrace"],
    "Allocations released by the very next call: candidates for the stack or reuse."));
  if (data.range) {
    sections.push(siteSection("grown", "Grew in the range", data.range.grown,
      ["type", "grown", "grownBlocks", "backtrace"],
      "What was allocated in the range and is still alive at its end, by backtrace."));
  }
  sections.push(histogramSection(data));
  if (data.pagemap !== null) {
    sections.push(pagemapSection(data.pagemap));
  }
  if (data.diff !== null) {
    sections.push(diffSection(data.diff));
  }
  for (const table of data.sections) {
    sections.push(tableSection(table));
  }
  const title = "rtrace report: " + (data.process || "trace") +
    (data.pid ? " (pid " + data.pid + ")" : "");
  const shortNames = element("input", { id: "short-names", type: "checkbox" });
  shortNames.addEventListener("change", () => setShortNames(shortNames.checked));
  const header = element("header", {},
    element("h1", { text: title }),
    element("p", { class: "note", text: humanCount(data.calls) + " calls; " + data.generator }),
    ...(data.range ? [element("p", {
      id: "range-note", class: "note",
      text: "Range " + data.range.description + (data.range.first_call === null ? " (no call)"
        : ` (calls ${data.range.first_call} to ${data.range.last_call})`) + ": the figures " +
        "count the calls in the range, the flame graph and the trees weigh its sites; " +
        "\"alive\" is alive at the range's end, allocated before it or in it. The timelines " +
        "show the whole trace.",
    })] : []),
    element("label", { class: "switch" }, shortNames,
      " Short names (template arguments left out: std::vector<>::push_back)"));
  const nav = element("nav");
  for (const s of sections) {
    nav.append(element("a", { href: "#" + s.id, text: s.querySelector("h2").textContent }));
  }
  // Navigation links must not disturb the fragment the flame graph reads.
  nav.addEventListener("click", (event) => {
    const target = event.target.closest("a");
    if (target !== null) {
      event.preventDefault();
      document.getElementById(target.getAttribute("href").slice(1)).scrollIntoView();
    }
  });
  report.append(header, nav, ...sections, element("pre", { id: "errors", hidden: "" }));
  views = { flame: flame.graph, tree: analysis.tree, callers: analysis.callers };
  flame.graph.render();
  analysis.tree.render();
  analysis.callers.render();
  applyFragment(flame.graph);
  window.addEventListener("hashchange", () => applyFragment(flame.graph));
  window.addEventListener("resize", () => flame.graph.render());
  // For the console and the tests.
  window.rtraceReport = { data, flame: flame.graph, tree: analysis.tree, callers: analysis.callers };
  document.body.dataset.rendered = "true";
  // Milliseconds from the start of the navigation to the page drawn, and of that in this script
  // (bench/RESULTS.md).
  document.body.dataset.renderMs = String(Math.round(performance.now()));
  document.body.dataset.scriptMs = String(Math.round(performance.now() - scriptStart));
}

try {
  main();
} catch (error) {
  recordError(error && error.stack ? error.stack : error);
  console.error(error);
}
