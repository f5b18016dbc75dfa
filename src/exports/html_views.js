// The analysis views of `rtrace report --html` (embedded before html_report.js, in the same
// script): the bottom-up and top-down call trees with inclusive and self columns, the callers
// and callees of one function, and the inverted tree the flame graph draws bottom-up. All of
// them read the page's calling-context trees (FlameTree, one per resource type) under the weight
// and type the flame graph's controls choose, so one switch changes every view.
"use strict";

// ---- Names ---------------------------------------------------------------------------------

// Operators whose names hold angle brackets, longest first: they are not template arguments.
const ANGLE_OPERATORS = ["operator<=>", "operator<<=", "operator>>=", "operator<<", "operator>>",
  "operator<=", "operator>=", "operator->", "operator<", "operator>"];

// `name` with every template argument list emptied ("std::vector<int>::push_back" ->
// "std::vector<>::push_back"), as `rtrace report --short-templates` writes names. The page holds
// names in full and shortens them only when they are shown.
function shortenTemplates(name) {
  let out = "";
  let depth = 0;
  for (let i = 0; i < name.length;) {
    const operator = ANGLE_OPERATORS.find((op) => name.startsWith(op, i));
    if (operator !== undefined) {
      out += depth === 0 ? operator : "";
      i += operator.length;
      continue;
    }
    const c = name[i];
    i += 1;
    if (c === "<") {
      out += depth === 0 ? c : "";
      depth += 1;
    } else if (c === ">" && depth > 0) {
      depth -= 1;
      out += depth === 0 ? c : "";
    } else if (depth === 0) {
      out += c;
    }
  }
  return out;
}

// How every view shows a name: in full, or shortened when the page's switch says so.
const nameDisplay = {
  short: false,
  of(name) {
    return this.short ? shortenTemplates(name) : name;
  },
};

// ---- Derived trees -------------------------------------------------------------------------

// Each node's own figure of weight index `w` (what it holds beyond its children: what was
// allocated in that frame itself, plus the children the page left out).
function selfValues(tree, w) {
  const values = tree.values[w];
  const self = Float64Array.from(values);
  for (let i = 1; i < tree.size; i += 1) {
    self[tree.parent[i]] -= values[i];
  }
  return self;
}

// The tree upside down, as flat nodes in FlameTree's layout: under the root each function that
// allocated itself, under it its callers, and so on out to the outermost caller. A node weighs
// what its innermost frame allocated through that chain of callers.
function invertedNodes(tree) {
  const weightCount = tree.values.length;
  const selves = tree.values.map((_, w) => selfValues(tree, w));
  const root = { name: tree.nameId[0], values: new Float64Array(weightCount), children: new Map() };
  for (let i = 0; i < tree.size; i += 1) {
    if (selves.every((self) => self[i] === 0)) {
      continue;
    }
    let node = root;
    selves.forEach((self, w) => { node.values[w] += self[i]; });
    for (let p = i; p > 0; p = tree.parent[p]) {
      const name = tree.nameId[p];
      let child = node.children.get(name);
      if (child === undefined) {
        child = { name, values: new Float64Array(weightCount), children: new Map() };
        node.children.set(name, child);
      }
      selves.forEach((self, w) => { child.values[w] += self[i]; });
      node = child;
    }
  }
  const nodes = [];
  const pending = [[root, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop();
    nodes.push(depth, node.name, ...node.values);
    const children = Array.from(node.children.values()).sort((a, b) => b.name - a.name);
    for (const child of children) {
      pending.push([child, depth + 1]);
    }
  }
  return { type: tree.type, nodes };
}

// The children of `node` (contiguous in depth-first order).
function childrenOf(tree, node) {
  const children = [];
  for (let c = node + 1; c < tree.end[node]; c = tree.end[c]) {
    children.push(c);
  }
  return children;
}

// Each function's figures over the whole top-down tree, by name: inclusive (it and what it
// called; a recursion counted once, at its outermost call) and self (in the function itself).
function functionTotals(tree, w) {
  const values = tree.values[w];
  const self = selfValues(tree, w);
  const totals = new Map();
  const onPath = new Map(); // name -> how often it is on the path to the node
  const path = [];
  for (let i = 1; i < tree.size; i += 1) {
    while (path.length >= tree.depth[i]) {
      const left = path.pop();
      onPath.set(left, onPath.get(left) - 1);
    }
    const name = tree.name[i];
    const total = totals.get(name) || { inclusive: 0, self: 0 };
    total.self += self[i];
    if (!(onPath.get(name) > 0)) {
      total.inclusive += values[i];
    }
    totals.set(name, total);
    path.push(name);
    onPath.set(name, (onPath.get(name) || 0) + 1);
  }
  return totals;
}

// ---- Call trees ----------------------------------------------------------------------------

const TREE_ROW_LIMIT = 2000;

// The top-down tree (callers first, as the flame graph) or the bottom-up one (the functions that
// allocated first, their callers beneath), as an expandable table with inclusive and self
// columns, sortable by either (or the name) and searchable by a regular expression.
class CallTreeView {
  constructor(graph, root, openFunction) {
    this.graph = graph;
    this.openFunction = openFunction;
    this.mode = "top-down";
    this.sortKey = "inclusive";
    this.expanded = new Set([0]);
    this.pattern = null;
    this.shownTree = null;
    const modes = element("select", { id: "tree-mode", "aria-label": "tree" },
      element("option", { value: "top-down", text: "top-down (callers first)" }),
      element("option", { value: "bottom-up", text: "bottom-up (allocating functions first)" }));
    modes.addEventListener("change", () => this.setMode(modes.value));
    this.modes = modes;
    this.search = element("input", {
      id: "tree-search", type: "search", placeholder: "Search functions (regular expression)",
    });
    this.search.addEventListener("input", () => this.setSearch(this.search.value));
    this.table = element("table", { id: "call-tree", class: "call-tree" });
    this.table.addEventListener("click", (event) => this.clicked(event));
    this.note = element("p", { id: "call-tree-note", class: "note" });
    root.append(element("div", { class: "view-controls" }, modes, this.search), this.note,
      this.table);
  }

  setMode(mode) {
    this.mode = mode === "bottom-up" ? "bottom-up" : "top-down";
    this.modes.value = this.mode;
    this.render();
    updateFragment();
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

  setSort(key) {
    this.sortKey = key;
    this.render();
  }

  clicked(event) {
    const heading = event.target.closest("th[data-sort]");
    if (heading !== null) {
      this.setSort(heading.dataset.sort);
      return;
    }
    const fn = event.target.closest(".fn");
    if (fn !== null) {
      event.preventDefault(); // a link for the keyboard, not a change of the fragment
      this.openFunction(fn.dataset.function);
      return;
    }
    const row = event.target.closest("tr[data-node]");
    if (row !== null && event.target.closest(".toggle") !== null) {
      const node = Number(row.dataset.node);
      if (this.expanded.has(node)) {
        this.expanded.delete(node);
      } else {
        this.expanded.add(node);
      }
      this.render();
    }
  }

  render() {
    const tree = this.mode === "bottom-up" ? this.graph.invertedTree() : this.graph.tree;
    if (tree !== this.shownTree) {
      this.shownTree = tree;
      this.expandHeaviest(tree);
    }
    this.table.textContent = "";
    this.table.dataset.mode = this.mode;
    this.table.dataset.weight = this.graph.weight;
    if (tree === null) {
      return;
    }
    const w = WEIGHTS.indexOf(this.graph.weight);
    const values = tree.values[w];
    const self = selfValues(tree, w);
    if (this.mode === "bottom-up") {
      // A function's row under the root: its figures over the whole trace; beneath it, what it
      // allocated through each chain of callers (inclusive and self alike).
      const totals = functionTotals(this.graph.tree, w);
      for (let i = 1; i < tree.size; i += 1) {
        const total = tree.depth[i] === 1 ? totals.get(tree.name[i]) : null;
        self[i] = total ? total.self : values[i];
      }
      this.inclusiveOf = (node) => (tree.depth[node] === 1 ? totals.get(tree.name[node]).inclusive
        : values[node]);
    } else {
      this.inclusiveOf = (node) => values[node];
    }
    const head = element("tr");
    for (const [key, title] of [["name", "function"], ["inclusive", "inclusive"], ["self", "self"]]) {
      head.append(element("th", {
        "data-sort": key, text: title, title: "Sort by " + title,
        "aria-sort": key === this.sortKey ? (key === "name" ? "ascending" : "descending") : "none",
      }));
    }
    const body = element("tbody");
    const order = this.sortKey === "name"
      ? (a, b) => tree.name[a].localeCompare(tree.name[b])
      : (a, b) => (this.sortKey === "self" ? self[b] - self[a]
        : this.inclusiveOf(b) - this.inclusiveOf(a));
    const onPath = this.pattern === null ? null : this.matchedPaths(tree, values);
    let rows = 0;
    const pending = childrenOf(tree, 0).filter((c) => values[c] > 0).sort(order).reverse();
    while (pending.length > 0 && rows < TREE_ROW_LIMIT) {
      const node = pending.pop();
      if (onPath !== null && !onPath.has(node)) {
        continue;
      }
      const children = childrenOf(tree, node).filter((c) => values[c] > 0);
      const open = onPath !== null || this.expanded.has(node);
      body.append(this.row(tree, node, this.inclusiveOf(node), self[node], children.length > 0,
        open));
      rows += 1;
      if (open) {
        pending.push(...children.sort(order).reverse());
      }
    }
    if (rows === 0) {
      body.append(element("tr", {}, element("td", {
        colspan: 3, text: "No " + WEIGHT_TITLES[this.graph.weight] + " here.",
      })));
    }
    this.table.append(element("thead", {}, head), body);
    this.note.textContent = (this.mode === "bottom-up"
      ? "The functions that allocated, their callers beneath; a function's row: inclusive (it " +
        "and what it called) and self (in the function itself) over the whole trace; a " +
        "caller's row: what the function allocated through that chain of callers."
      : "Callers first, what they call beneath; inclusive: the frame and everything it called, " +
        "self: the frame itself.") + " Weight: " + WEIGHT_TITLES[this.graph.weight] + " of " +
      tree.type + " (" + humanWeight(values[0], this.graph.weight) + " in all)." +
      (rows >= TREE_ROW_LIMIT ? ` The first ${TREE_ROW_LIMIT} rows are shown.` : "");
  }

  // Opens the nodes that hold more than half of the whole, for a first look.
  expandHeaviest(tree) {
    this.expanded = new Set([0]);
    const values = tree.values[WEIGHTS.indexOf(this.graph.weight)];
    for (let i = 1; i < tree.size; i += 1) {
      if (values[i] * 2 > values[0] && this.expanded.has(tree.parent[i])) {
        this.expanded.add(i);
      }
    }
  }

  // The matching nodes and their callers: what a search shows, all expanded.
  matchedPaths(tree, values) {
    const shown = new Set();
    for (let i = 1; i < tree.size; i += 1) {
      if (values[i] > 0 && this.pattern.test(tree.name[i])) {
        for (let p = i; p > 0 && !shown.has(p); p = tree.parent[p]) {
          shown.add(p);
        }
      }
    }
    return shown;
  }

  row(tree, node, inclusive, self, hasChildren, open) {
    const name = tree.name[node];
    const toggle = element("button", {
      type: "button", class: "toggle", text: hasChildren ? (open ? "▾" : "▸") : "·",
      "aria-label": open ? "collapse" : "expand",
    });
    toggle.disabled = !hasChildren;
    const label = element("a", {
      class: "fn", href: "#", "data-function": name, text: nameDisplay.of(name), title: name,
    });
    const first = element("td", {
      class: "tree-name", style: `padding-left:${tree.depth[node] - 1}em`,
    }, toggle, label);
    const tr = element("tr", { "data-node": node, "data-depth": tree.depth[node] }, first,
      element("td", {
        class: "number", "data-value": inclusive, text: humanWeight(inclusive, this.graph.weight),
      }),
      element("td", {
        class: "number", "data-value": self, text: humanWeight(self, this.graph.weight),
      }));
    if (this.pattern !== null && this.pattern.test(name)) {
      tr.classList.add("match");
    }
    return tr;
  }
}

// ---- Callers and callees -------------------------------------------------------------------

// One function of the top-down tree: what it costs (inclusive: it and what it called, each
// recursion counted once; self: in the function itself), its callers above with what it cost
// through each, its callees below with what each cost under it.
function callerCalleeOf(tree, name, w) {
  const values = tree.values[w];
  const self = selfValues(tree, w);
  const callers = new Map();
  const callees = new Map();
  const add = (map, key, value) => map.set(key, (map.get(key) || 0) + value);
  let inclusive = 0;
  let selfTotal = 0;
  let found = false;
  for (let i = 1; i < tree.size; i += 1) {
    if (tree.name[i] !== name) {
      continue;
    }
    found = true;
    selfTotal += self[i];
    let outermost = true;
    for (let p = tree.parent[i]; p > 0; p = tree.parent[p]) {
      outermost = outermost && tree.name[p] !== name;
    }
    if (!outermost) {
      continue;
    }
    inclusive += values[i];
    add(callers, tree.parent[i] === 0 ? "[outermost]" : tree.name[tree.parent[i]], values[i]);
    for (const c of childrenOf(tree, i)) {
      add(callees, tree.name[c], values[c]);
    }
  }
  const sorted = (map) => Array.from(map.entries()).filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1]);
  return { found, inclusive, self: selfTotal, callers: sorted(callers), callees: sorted(callees) };
}

class CallerCalleeView {
  constructor(graph, root) {
    this.graph = graph;
    this.name = null;
    this.root = root;
    this.body = element("div", { id: "caller-callee" });
    this.root.append(this.body);
    this.body.addEventListener("click", (event) => {
      const fn = event.target.closest(".fn");
      if (fn !== null) {
        event.preventDefault();
        this.open(fn.dataset.function);
      }
    });
  }

  // Shows `name` (a frame's name in full) and brings the view into sight.
  open(name) {
    this.name = name;
    this.render();
    this.root.scrollIntoView();
  }

  render() {
    this.body.textContent = "";
    const tree = this.graph.tree;
    if (this.name === null || tree === null) {
      this.body.dataset.function = "";
      this.body.append(element("p", {
        class: "note", text: "Click a function in the call trees or the flame graph's details.",
      }));
      return;
    }
    const weight = this.graph.weight;
    const view = callerCalleeOf(tree, this.name, WEIGHTS.indexOf(weight));
    this.body.dataset.function = this.name;
    this.body.dataset.weight = weight;
    const table = (id, heading, entries) => {
      const t = element("table", { id, class: "caller-callee" },
        element("thead", {}, element("tr", {},
          element("th", { text: heading }), element("th", { text: WEIGHT_TITLES[weight] }))));
      const rows = element("tbody");
      for (const [name, value] of entries) {
        rows.append(element("tr", {},
          element("td", {}, name === "[outermost]" ? element("span", { text: name })
            : element("a", { class: "fn", href: "#", "data-function": name, text: nameDisplay.of(name), title: name })),
          element("td", { class: "number", "data-value": value, text: humanWeight(value, weight) })));
      }
      if (entries.length === 0) {
        rows.append(element("tr", {}, element("td", { colspan: 2, text: "none" })));
      }
      t.append(rows);
      return t;
    };
    this.body.append(
      table("callers", "callers", view.callers),
      element("div", { id: "selected-function", class: "selected-function" },
        element("strong", { text: nameDisplay.of(this.name), title: this.name }),
        element("span", {
          text: view.found
            ? ` inclusive ${humanWeight(view.inclusive, weight)}, self ${humanWeight(view.self, weight)} (${tree.type})`
            : " is not in the " + tree.type + " tree shown",
        })),
      table("callees", "callees", view.callees));
  }
}
