// What the browser tests of rtrace's HTML page share: Debian's chromium launched headless
// through puppeteer-core (the DevTools protocol), a fresh profile in a private temporary
// folder, every console message and page error collected so that a test can assert there were
// none.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const puppeteer = require("puppeteer-core");

async function launchBrowser() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "rtrace-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      `--user-data-dir=${profile}`],
  });
  const close = async () => {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return { browser, close };
}

// Opens `file` (with `fragment`) in a new page of `browser`; `messages` collects the console's
// messages and the page's errors.
async function openPage(browser, file, fragment = "") {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const messages = [];
  page.on("console", (message) => messages.push(`console.${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => messages.push(`page error: ${error.message}`));
  await page.goto("file://" + path.resolve(file) + fragment, { waitUntil: "load" });
  await page.waitForSelector("body[data-rendered='true']");
  return { page, messages };
}

module.exports = { launchBrowser, openPage };
