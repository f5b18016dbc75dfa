// The interactive part of rtrace's flame graph SVG (flamegraph_export.cpp embeds this file at
// build time): click a frame to zoom into it, "Reset zoom" to go back, "Search" to highlight
// the frames whose name matches a regular expression and show their share of the total.
//
// The URL fragment drives it too (links and the browser tests use it): #search=REGEX&zoom=FRAME
// highlights the matches and zooms into the first frame called FRAME.
//
// Each frame is a <g class="frame"> with data-x and data-w (its start and width as fractions of
// the whole graph), data-d (its depth) and data-n (its name); its <title> says what it weighs.
"use strict";

const svgNS = "http://www.w3.org/2000/svg";
let frames = [];
let details = null;
let matchedLabel = null;
let graphLeft = 0;
let graphWidth = 0;

function init() {
  const svg = document.documentElement;
  graphLeft = Number(svg.getAttribute("data-left"));
  graphWidth = Number(svg.getAttribute("data-width"));
  details = document.getElementById("details");
  matchedLabel = document.getElementById("matched");
  frames = Array.from(document.querySelectorAll("g.frame"));
  for (const frame of frames) {
    frame.addEventListener("click", () => zoom(frame));
    frame.addEventListener("mouseover", () => showDetails(frame));
    frame.addEventListener("mouseout", () => showDetails(null));
  }
  document.getElementById("reset").addEventListener("click", resetZoom);
  document.getElementById("search").addEventListener("click", askSearch);
  document.addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === "f") {
      event.preventDefault();
      askSearch();
    } else if (event.key === "Escape") {
      resetZoom();
    }
  });
  applyFragment();
  window.addEventListener("hashchange", applyFragment);
}

function applyFragment() {
  const parameters = new URLSearchParams(window.location.hash.slice(1));
  if (parameters.has("search")) {
    search(parameters.get("search"));
  }
  if (parameters.has("zoom")) {
    const name = parameters.get("zoom");
    const frame = frames.find((f) => f.getAttribute("data-n") === name);
    if (frame === undefined) {
      matchedLabel.textContent = "no frame called " + name;
    } else {
      zoom(frame);
    }
  }
}

function numberOf(frame, name) {
  return Number(frame.getAttribute("data-" + name));
}

function showDetails(frame) {
  const title = frame === null ? null : frame.querySelector("title");
  details.textContent = title === null ? " " : title.textContent;
}

// Fits a frame's label into its rectangle: as many characters as fit, then "..".
function fitText(frame) {
  const rect = frame.querySelector("rect");
  const text = frame.querySelector("text");
  const width = Number(rect.getAttribute("width"));
  const name = frame.getAttribute("data-n");
  const fits = Math.floor((width - 6) / 7);
  text.setAttribute("x", Number(rect.getAttribute("x")) + 3);
  if (fits < 3) {
    text.textContent = "";
  } else if (name.length <= fits) {
    text.textContent = name;
  } else {
    text.textContent = name.substring(0, fits - 2) + "..";
  }
}

// Shows the part [left, left + width) of the graph at full width, from depth `depth` on;
// the frames above `depth` that contain it stay, full width, to show where it is.
function place(left, width, depth) {
  for (const frame of frames) {
    const x = numberOf(frame, "x");
    const w = numberOf(frame, "w");
    const d = numberOf(frame, "d");
    const rect = frame.querySelector("rect");
    const inside = x >= left - 1e-12 && x + w <= left + width + 1e-12 && d >= depth;
    const above = d < depth && x <= left + 1e-12 && x + w >= left + width - 1e-12;
    if (!inside && !above) {
      frame.style.display = "none";
      continue;
    }
    frame.style.display = "";
    const from = above ? 0 : (x - left) / width;
    const span = above ? 1 : w / width;
    rect.setAttribute("x", graphLeft + from * graphWidth);
    rect.setAttribute("width", span * graphWidth);
    frame.style.opacity = above ? "0.5" : "1";
    fitText(frame);
  }
}

function zoom(frame) {
  place(numberOf(frame, "x"), numberOf(frame, "w"), numberOf(frame, "d"));
  document.getElementById("reset").style.opacity = "1";
}

function resetZoom() {
  place(0, 1, 0);
  document.getElementById("reset").style.opacity = "0.3";
}

function askSearch() {
  const pattern = window.prompt("Highlight the frames matching (regular expression):", "");
  if (pattern === null) {
    return;
  }
  search(pattern);
}

// Highlights matches; their share counts nested matches once (a frame inside a matched frame
// adds nothing).
function search(pattern) {
  let expression = null;
  try {
    expression = pattern === "" ? null : new RegExp(pattern);
  } catch (error) {
    matchedLabel.textContent = "bad expression: " + error.message;
    return;
  }
  const covered = [];
  for (const frame of frames) {
    const rect = frame.querySelector("rect");
    const matches = expression !== null && expression.test(frame.getAttribute("data-n"));
    rect.setAttribute("fill", matches ? "rgb(230,0,230)" : rect.getAttribute("data-fill"));
    if (matches) {
      covered.push([numberOf(frame, "x"), numberOf(frame, "x") + numberOf(frame, "w")]);
    }
  }
  covered.sort((a, b) => a[0] - b[0]);
  let share = 0;
  let end = 0;
  for (const [from, to] of covered) {
    if (to > end) {
      share += to - Math.max(from, end);
      end = to;
    }
  }
  matchedLabel.textContent = expression === null ? "" : "Matched: " + (share * 100).toFixed(1) + "%";
}

window.addEventListener("load", init);
// For the tests and the console.
window.rtraceFlamegraph = { zoom, resetZoom, search, svgNS };
