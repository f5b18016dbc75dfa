// The HTML page of `rtrace report --html` in headless Chromium through the DevTools protocol
// (puppeteer-core from tests/browser): its first paint (the Performance API's first-contentful-
// paint, from the start of the navigation) and how long the views take to redraw after a switch
// of weight (flame graph, call trees, callers and callees) and after the inverted flame graph is
// turned on, each the median of RUNS page loads.
//
//   node bench/html-views.js PAGE [RUNS]
"use strict";

const path = require("path");
const { launchBrowser, openPage } = require(path.join(__dirname, "..", "tests", "browser",
  "page_driver.js"));

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

// Milliseconds from a click on `selector` to the frame after the page redrew.
async function redraw(page, selector) {
  return page.evaluate((s) => new Promise((resolve) => {
    const start = performance.now();
    document.querySelector(s).click();
    requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start), 0));
  }), selector);
}

(async () => {
  const [file, runsText] = process.argv.slice(2);
  const runs = Number(runsText || 5);
  const figures = { paint: [], weight: [], inverted: [], function: [] };
  const { browser, close } = await launchBrowser();
  try {
    for (let run = 0; run < runs; run += 1) {
      const { page, messages } = await openPage(browser, file);
      figures.paint.push(await page.evaluate(() => new Promise((resolve) => {
        new PerformanceObserver((list) => {
          const paint = list.getEntriesByName("first-contentful-paint")[0];
          if (paint !== undefined) {
            resolve(paint.startTime);
          }
        }).observe({ type: "paint", buffered: true });
      })));
      figures.weight.push(await redraw(page, "button[data-weight='allocated']"));
      figures.inverted.push(await redraw(page, "#flame-invert"));
      figures.function.push(await redraw(page, "#call-tree a.fn"));
      if (messages.length > 0) {
        throw new Error("the page logged: " + messages.join("\n"));
      }
      await page.close();
    }
  } finally {
    await close();
  }
  const line = (name, values) => `${name}: median ${median(values).toFixed(0)} ms ` +
    `(runs: ${values.map((v) => v.toFixed(0)).join(", ")})`;
  console.log(line("first contentful paint", figures.paint));
  console.log(line("weight switch redrawn", figures.weight));
  console.log(line("inverted flame graph redrawn", figures.inverted));
  console.log(line("callers and callees opened", figures.function));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
