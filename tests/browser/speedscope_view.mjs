// Opens a profile in speedscope (the npm package's offline build) in Debian's chromium, driven
// through the DevTools protocol by puppeteer-core, and prints as JSON what speedscope shows:
// the browser's console (the importer names the format it read), the page's errors, and the
// text of the view asked for ("sandwich": the table of every function with its total and self
// weights; "time-ordered": the toolbar with the profile's name).
//
// Usage: node speedscope_view.mjs PROFILE [VIEW]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import puppeteer from 'puppeteer-core';

const here = dirname(fileURLToPath(import.meta.url));
const [profile, view = 'sandwich'] = process.argv.slice(2);
if (!profile) {
  console.error('usage: node speedscope_view.mjs PROFILE [VIEW]');
  process.exit(2);
}
const page_url =
  pathToFileURL(join(here, 'node_modules/speedscope/dist/release/index.html')).href +
  `#view=${view}`;

const profile_dir = mkdtempSync(join(tmpdir(), 'rtrace-chromium-'));
const browser = await puppeteer.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  userDataDir: profile_dir,
  protocolTimeout: 600_000,
  args: [
    '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
  ],
});
const result = { console: [], errors: [], text: '' };
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  page.on('console', (message) => result.console.push(message.text()));
  page.on('pageerror', (error) => result.errors.push(error.message));
  await page.goto(page_url);
  const input = await page.waitForSelector('input#file');
  await input.uploadFile(resolve(profile));
  // The landing page's text goes when the profile is drawn; the sandwich view's table heads
  // its columns with "Symbol Name".
  await page.waitForFunction(
    (expected) => document.body.innerText.includes(expected),
    { timeout: 600_000, polling: 200 },
    view === 'sandwich' ? 'Symbol Name' : 'Sandwich');
  result.text = await page.evaluate(() => document.body.innerText);
} catch (error) {
  result.errors.push(String(error));
} finally {
  await browser.close();
  rmSync(profile_dir, { recursive: true, force: true });
}
console.log(JSON.stringify(result, null, 1));
