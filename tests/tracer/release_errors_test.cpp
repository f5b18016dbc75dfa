// The releases memcheck calls errors, from a real traced program (programs/invalid_frees.c: a
// double free, a free of a stack address, 1000 free(NULL)s), as `rtrace report` lists them: the
// ERRORS section with memcheck's names and the release's, first release's and allocation's
// backtraces (text, JSON, HTML), and free(NULL) counted apart as null releases, never among the
// releases.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "support/test_paths.h"

namespace rtrace::test {
namespace {

namespace fs = std::filesystem;

std::string rtrace() {
  return "'" + (build_dir() / "bin" / "rtrace").string() + "'";
}

std::string invalid_frees() {
  return "'" + std::string(RTRACE_TRACER_PROGRAMS) + "/invalid_frees'";
}

// The one trace `rtrace record` writes of invalid_frees into `scratch`/`name`.
fs::path record(const ScratchDir& scratch, const std::string& name, const std::string& options) {
  const fs::path traces = scratch / name;
  fs::create_directories(traces);
  const CommandResult recorded = run_command(rtrace() + " record -q -s -e memory " + options +
                                             " -o '" + traces.string() + "' -x " + invalid_frees());
  EXPECT_EQ(recorded.status, 0) << recorded.err;
  return fs::directory_iterator(traces)->path();
}

std::string report(const fs::path& trace, const std::string& options) {
  const CommandResult result =
      run_command(rtrace() + " report " + options + " '" + trace.string() + "'");
  EXPECT_EQ(result.status, 0) << result.err;
  return result.out;
}

// The text from `heading` to the next blank line.
std::string section(const std::string& text, const std::string& heading) {
  const std::size_t from = text.find("\n" + heading);
  if (from == std::string::npos) {
    return {};
  }
  const std::size_t to = text.find("\n\n", from + 1);
  return text.substr(from + 1, to == std::string::npos ? std::string::npos : to - from);
}

// Addresses as 0xA and the source's directory left out: what stays the same from run to run.
std::string stable(const std::string& text) {
  const std::string without_addresses = std::regex_replace(text, std::regex("0x[0-9a-f]+"), "0xA");
  return std::regex_replace(without_addresses, std::regex(" at [^ \n]*/invalid_frees\\.c:"),
                            " at invalid_frees.c:");
}

// The frames that matter of each backtrace: the program's (main and the releasing functions),
// the C library's start-up frames below main left out.
std::string program_frames(const std::string& text) {
  std::string kept;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    at = end == std::string::npos ? text.size() : end + 1;
    const bool frame = line.starts_with("      0xA");
    if (!frame || line.find("invalid_frees.c:") != std::string::npos) {
      kept += line + "\n";
    }
  }
  return kept;
}

TEST(ReleaseErrors, DoubleFreeAndStackAddressListedWithTheirBacktraces) {
  ScratchDir scratch;
  const fs::path trace = record(scratch, "with-free-backtraces", "-A");
  const std::string errors = section(report(trace, ""), "ERRORS");
  EXPECT_EQ(program_frames(stable(errors)),
            "ERRORS (releases memcheck reports, by its names)\n"
            "  Invalid free() / delete / delete[] / realloc(): 2 error(s)\n"
            "    free of 0xA (call 3): a block of 24 bytes released before (double free), 1 "
            "time(s)\n"
            "     released at:\n"
            "      0xA release_again() at invalid_frees.c:19\n"
            "      0xA main() at invalid_frees.c:38\n"
            "     first released at:\n"
            "      0xA release_block() at invalid_frees.c:15\n"
            "      0xA main() at invalid_frees.c:36\n"
            "     allocated at:\n"
            "      0xA main() at invalid_frees.c:35\n"
            "    free of 0xA (call 4): never allocated (not a heap block's start), 1 time(s)\n"
            "     released at:\n"
            "      0xA release_stack_address() at invalid_frees.c:25\n"
            "      0xA main() at invalid_frees.c:39\n")
      << errors;
}

TEST(ReleaseErrors, WithoutReleaseBacktracesTheAllocationIsStillKnown) {
  ScratchDir scratch;
  const fs::path trace = record(scratch, "plain", "");
  const std::string errors = section(report(trace, ""), "ERRORS");
  EXPECT_EQ(program_frames(stable(errors)),
            "ERRORS (releases memcheck reports, by its names)\n"
            "  Invalid free() / delete / delete[] / realloc(): 2 error(s)\n"
            "    free of 0xA (call 3): a block of 24 bytes released before (double free), 1 "
            "time(s)\n"
            "     released at:\n"
            "      (no backtrace)\n"
            "     first released at:\n"
            "      (no backtrace)\n"
            "     allocated at:\n"
            "      0xA main() at invalid_frees.c:35\n"
            "    free of 0xA (call 4): never allocated (not a heap block's start), 1 time(s)\n"
            "     released at:\n"
            "      (no backtrace)\n")
      << errors;
}

TEST(ReleaseErrors, JsonAndHtmlNameTheErrorsAsTheTextDoes) {
  ScratchDir scratch;
  const fs::path trace = record(scratch, "with-free-backtraces", "-A");
  const std::string json = stable(report(trace, "--json --no-resolve"));
  const std::string program = " in " + std::string(RTRACE_TRACER_PROGRAMS) + "/invalid_frees\"";
  const std::string libc = " in /usr/lib/x86_64-linux-gnu/libc.so.6\"";
  // Each backtrace: the program's frames (2 or 1), libc's 2 start-up frames, _start.
  const auto frames = [&](int own) {
    std::string list = "[";
    for (int i = 0; i < own; ++i) {
      list += "\"0xA" + program + ", ";
    }
    return list + "\"0xA" + libc + ", \"0xA" + libc + ", \"0xA" + program + "]";
  };
  EXPECT_NE(
      json.find("\"errors\": [{\"error\": \"Invalid free() / delete / delete[] / realloc()\", "
                "\"cause\": \"double-free\", \"released_by\": \"free\", \"address\": \"0xA\", "
                "\"call\": 3, \"count\": 1, \"release_backtrace\": " +
                frames(2) + ", \"bytes\": 24, \"first_release_backtrace\": " + frames(2) +
                ", \"backtrace\": " + frames(1) +
                "}, {\"error\": \"Invalid free() / delete / delete[] / realloc()\", "
                "\"cause\": \"never-allocated\", \"released_by\": \"free\", \"address\": "
                "\"0xA\", \"call\": 4, \"count\": 1, \"release_backtrace\": " +
                frames(2) + "}],\n"),
      std::string::npos)
      << json;

  const fs::path page = scratch / "report.html";
  report(trace, "--html '" + page.string() + "'");
  const std::string html = read_file(page);
  EXPECT_NE(html.find(R"("id": "errors", "title": "Errors")"), std::string::npos);
  EXPECT_NE(html.find(R"x(["Invalid free() / delete / delete[] / realloc()", "free of 0x)x"),
            std::string::npos);
  EXPECT_NE(html.find("release_again() at "), std::string::npos);
  EXPECT_NE(html.find(R"("releases": 4, "null_releases": 1000,)"), std::string::npos);
}

// free(NULL) releases nothing: the program's 1000 are null releases, and its releases are the 4
// others (the block, again, the stack address, realloc's block), in the text, the JSON and the
// page's data; realloc(NULL, 16) is one of its 2 allocations.
TEST(ReleaseErrors, NullReleasesAreCountedApartFromReleases) {
  ScratchDir scratch;
  const fs::path trace = record(scratch, "plain", "");
  const std::string totals = section(report(trace, "--no-resolve"), "TOTALS");
  EXPECT_EQ(totals,
            "TOTALS\n"
            "  memory (memory allocation in bytes): 1006 calls, 2 allocations of 40 bytes, 4 "
            "releases, 1000 null releases, 2 temporary\n");
  const std::string json = report(trace, "--json --no-resolve");
  EXPECT_NE(json.find(R"("calls": 1006, "allocations": 2, "releases": 4, "null_releases": 1000,)"),
            std::string::npos)
      << json;
}

}  // namespace
}  // namespace rtrace::test
