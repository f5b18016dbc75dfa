// The analysis views of `rtrace report --html` driven in headless Chromium through the DevTools
// protocol (puppeteer-core): a recorded run of examples/leaky is reported as a page, and what the
// page shows after clicks is compared with `rtrace export folded` of the same trace (the same
// stacks, each weight summed by the tool, not by the page):
//  - clicking a function in the call tree opens its callers and callees with their figures;
//  - switching the weight changes the flame graph to that weight's figures;
//  - the inverted flame graph has the allocating functions on top;
//  - the bottom-up tree lists the allocating functions with their self figures;
//  - the page never logs a console message nor a page error.
//
//   node html_views_test.js RTRACE LEAKY
"use strict";

const assert = require("assert/strict");
const { execFileSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const test = require("node:test");
const { launchBrowser, openPage } = require("./page_driver.js");

const [rtrace, leaky] = process.argv.slice(2);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "rtrace-views-"));
let browser = null;
let closeBrowser = null;
let trace = null;
const pageFile = path.join(scratch, "report.html");

function run(...args) {
  return execFileSync(rtrace, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

// The folded stacks of `weight`: [[frames outermost first], value].
function folded(weight) {
  return run("export", "folded", "-w", weight, "-i", trace).trim().split("\n").map((line) => {
    const space = line.lastIndexOf(" ");
    return [line.slice(0, space).split(";"), Number(line.slice(space + 1))];
  });
}

// Sums `value` into `map` under `key`.
function add(map, key, value) {
  map.set(key, (map.get(key) || 0) + value);
}

// What the tool says about function `name`: its callers and callees with what it cost through
// each (the outermost call of a recursion), as sorted [name, value] pairs.
function callerCalleeFromFolded(stacks, name) {
  const callers = new Map();
  const callees = new Map();
  for (const [frames, value] of stacks) {
    const at = frames.indexOf(name);
    if (at < 0) {
      continue;
    }
    add(callers, at === 0 ? "[outermost]" : frames[at - 1], value);
    if (at + 1 < frames.length) {
      add(callees, frames[at + 1], value);
    }
  }
  const sorted = (map) => Array.from(map.entries()).sort((a, b) => a[0].localeCompare(b[0]));
  return { callers: sorted(callers), callees: sorted(callees) };
}

// The rows of a callers or callees table as sorted [name, value] pairs.
async function tableEntries(page, id) {
  const entries = await page.$$eval(`#${id} tbody tr`, (rows) => rows
    .filter((row) => row.cells.length === 2)
    .map((row) => [row.cells[0].textContent, Number(row.cells[1].dataset.value)]));
  return entries.sort((a, b) => a[0].localeCompare(b[0]));
}

test.before(async () => {
  run("record", "-q", "-s", "-e", "memory", "-o", scratch, "-x", leaky);
  trace = path.join(scratch, fs.readdirSync(scratch).find((name) => name.endsWith(".rtrace")));
  run("report", "--html", pageFile, trace);
  ({ browser, close: closeBrowser } = await launchBrowser());
});

test.after(async () => {
  if (closeBrowser !== null) {
    await closeBrowser();
  }
  fs.rmSync(scratch, { recursive: true, force: true });
});

test("clicking a function in the call tree opens its callers and callees", async () => {
  const { page, messages } = await openPage(browser, pageFile);
  await page.click("#call-tree a.fn[data-function='main']");
  assert.equal(await page.$eval("#caller-callee", (e) => e.dataset.function), "main");
  const expected = callerCalleeFromFolded(folded("leaked"), "main");
  assert.deepEqual({
    callers: await tableEntries(page, "callers"), callees: await tableEntries(page, "callees"),
  }, expected, "main's callers and callees (leaked bytes) differ from rtrace export folded's");
  assert.match(await page.evaluate(() => location.hash), /function=main/);
  // A callee's name moves the view to it.
  await page.click("#callees a.fn[data-function='grow_log']");
  assert.equal(await page.$eval("#caller-callee", (e) => e.dataset.function), "grow_log");
  assert.deepEqual(await tableEntries(page, "callers"),
    callerCalleeFromFolded(folded("leaked"), "grow_log").callers);
  assert.deepEqual(messages, []);
});

test("a zoomed flame graph frame opens its function's callers and callees", async () => {
  const { page, messages } = await openPage(browser, pageFile, "#zoom=grow_log");
  await page.click("#flame-function");
  assert.equal(await page.$eval("#caller-callee", (e) => e.dataset.function), "grow_log");
  assert.deepEqual(messages, []);
});

test("switching the weight changes the flame graph to that weight's figures", async () => {
  const { page, messages } = await openPage(browser, pageFile);
  const widthOfMain = () => page.$eval("#flame .frame[data-name='main']",
    (frame) => frame.title.split("\n")[1]);
  const shown = {};
  for (const weight of ["leaked", "allocated", "count"]) {
    await page.click(`button[data-weight='${weight}']`);
    assert.equal(await page.$eval("#flame", (e) => e.dataset.weight), weight);
    shown[weight] = await widthOfMain();
    const total = folded(weight).reduce((sum, [frames, value]) =>
      sum + (frames.includes("main") ? value : 0), 0);
    const expected = await page.evaluate((value, w) => humanWeight(value, w), total, weight);
    assert.ok(shown[weight].startsWith(expected + " ("),
      `main under ${weight}: the page shows "${shown[weight]}", folded sums ${expected}`);
  }
  assert.notEqual(shown.leaked, shown.allocated);
  // The call tree follows the weight too.
  assert.equal(await page.$eval("#call-tree", (e) => e.dataset.weight), "count");
  assert.deepEqual(messages, []);
});

test("the inverted flame graph has the allocating functions on top", async () => {
  const { page, messages } = await openPage(browser, pageFile, "#weight=allocated");
  await page.click("#flame-invert");
  assert.equal(await page.$eval("#flame", (e) => e.dataset.inverted), "true");
  assert.match(await page.evaluate(() => location.hash), /inverted=1/);
  const top = await page.$$eval("#flame .frame", (frames) => frames
    .filter((frame) => frame.style.top === "18px")
    .map((frame) => frame.dataset.name).sort());
  const innermost = new Set(folded("allocated").map(([frames]) => frames[frames.length - 1]));
  assert.deepEqual(top, Array.from(innermost).sort(),
    "the inverted graph's first row differs from the innermost frames of folded's stacks");
  assert.deepEqual(messages, []);
});

test("the bottom-up tree lists each allocating function with what it allocated itself", async () => {
  const { page, messages } = await openPage(browser, pageFile, "#weight=allocated&tree=bottom-up");
  const rows = await page.$$eval("#call-tree tr[data-depth='1']", (trs) => trs
    .map((tr) => [tr.querySelector(".fn").dataset.function, Number(tr.cells[2].dataset.value)])
    .sort((a, b) => a[0].localeCompare(b[0])));
  const self = new Map();
  for (const [frames, value] of folded("allocated")) {
    add(self, frames[frames.length - 1], value);
  }
  assert.deepEqual(rows, Array.from(self.entries()).sort((a, b) => a[0].localeCompare(b[0])),
    "the bottom-up tree's functions and self figures differ from folded's innermost frames");
  assert.deepEqual(messages, []);
});

test("the short names switch shortens template arguments as --short-templates does", async () => {
  const { page, messages } = await openPage(browser, pageFile, "#short=1");
  assert.equal(await page.$eval("#short-names", (e) => e.checked), true);
  assert.equal(await page.evaluate(() => shortenTemplates(
    "std::vector<int, std::allocator<int> >::push_back(int const&)")),
  "std::vector<>::push_back(int const&)");
  assert.equal(await page.evaluate(() => shortenTemplates("operator<<(std::ostream&, A<B>)")),
    "operator<<(std::ostream&, A<>)");
  assert.deepEqual(messages, []);
});
