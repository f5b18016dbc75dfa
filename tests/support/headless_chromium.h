// Opens pages in headless Chromium, as the browser tests of the HTML report and the SVG flame
// graph need: the DOM after the page's scripts ran, what the browser logged, a screenshot.
//
// Each run gets a fresh profile directory (mkdtemp) and no network services. Chromium is a
// dependency of the test suite (scripts/install-deps.sh installs it): when it is missing, the
// calling test fails, it is not skipped.
#pragma once

#include <filesystem>
#include <string>

namespace rtrace::test {

struct BrowserRun {
  int status = -1;
  std::string dom;  // --dump-dom: the serialized DOM after load
  std::string log;  // the browser's stderr, console messages included ("CONSOLE")
};

// The chromium command, or "" (and a test failure) when it is not installed.
std::string chromium();

// The file URL of `path` with `fragment` ("#..." or "") appended.
std::string file_url(const std::filesystem::path& path, const std::string& fragment = "");

// Loads `url` and dumps its DOM.
BrowserRun dump_dom(const std::string& url);

// Loads `url` in a `width` x `height` window and saves a PNG of it to `png`.
BrowserRun screenshot(const std::string& url, const std::filesystem::path& png, int width,
                      int height);

// The console messages in a browser log (lines with "CONSOLE"), one per line.
std::string console_messages(const std::string& log);

}  // namespace rtrace::test
