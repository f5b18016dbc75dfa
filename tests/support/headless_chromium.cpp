#include "support/headless_chromium.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <string_view>

#include "support/test_paths.h"

namespace rtrace::test {
namespace {

// Flags that work as root in a container: no sandbox, no GPU, no first-run or network chatter.
std::string browser_command(const ScratchDir& profile, const std::string& what,
                            const std::string& url) {
  return fmt::format(
      "timeout 120 '{}' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync "
      "--hide-scrollbars --user-data-dir='{}' --enable-logging=stderr --v=0 {} '{}'",
      chromium(), profile.path().string(), what, url);
}

}  // namespace

std::string chromium() {
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (std::filesystem::exists(candidate)) {
      return candidate;
    }
  }
  ADD_FAILURE() << "chromium is not installed (scripts/install-deps.sh installs it)";
  return "";
}

std::string file_url(const std::filesystem::path& path, const std::string& fragment) {
  std::string url = "file://";
  for (const char c : std::filesystem::absolute(path).string()) {
    // Paths of ScratchDir are plain, but keep the URL valid whatever they hold.
    if (std::isalnum(static_cast<unsigned char>(c)) != 0 ||
        std::string_view("/._-~").find(c) != std::string_view::npos) {
      url += c;
    } else {
      url += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    }
  }
  return url + fragment;
}

BrowserRun dump_dom(const std::string& url) {
  const ScratchDir profile;
  const CommandResult r = run_command(browser_command(profile, "--dump-dom", url));
  return {.status = r.status, .dom = r.out, .log = r.err};
}

BrowserRun screenshot(const std::string& url, const std::filesystem::path& png, int width,
                      int height) {
  const ScratchDir profile;
  const CommandResult r = run_command(browser_command(
      profile, fmt::format("--window-size={},{} --screenshot='{}'", width, height, png.string()),
      url));
  return {.status = r.status, .dom = "", .log = r.err};
}

std::string console_messages(const std::string& log) {
  std::string messages;
  std::size_t start = 0;
  while (start < log.size()) {
    std::size_t end = log.find('\n', start);
    end = end == std::string::npos ? log.size() : end;
    const std::string_view line(log.data() + start, end - start);
    if (line.find("CONSOLE") != std::string_view::npos) {
      messages.append(line);
      messages += '\n';
    }
    start = end + 1;
  }
  return messages;
}

}  // namespace rtrace::test
