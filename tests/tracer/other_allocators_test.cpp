// Programs linked with jemalloc, tcmalloc (gperftools) and mimalloc, recorded by the real
// `rtrace record -e memory`: the malloc family reaches the library through the memory module's
// wrappers, the libraries' own entry points (mi_malloc, mallocx, tc_malloc, ...) are recorded
// under their names, and `rtrace process -l` lists exactly the blocks each program says it leaked;
// `rtrace report` says which allocator the blocks came from and which releases do not match.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_paths.h"
#include "trace_decoder.h"
#include "trace_records.h"

namespace rtrace::test {
namespace {

namespace fs = std::filesystem;

std::string quote(const fs::path& path) {
  return "'" + path.string() + "'";
}

std::string rtrace_command() {
  return quote(build_dir() / "bin" / "rtrace");
}

// One program recorded with the memory module: what it printed, and its one trace.
struct Recorded {
  explicit Recorded(const std::string& program) {
    run = run_command(rtrace_command() + " record -q -e memory -o " + quote(out.path()) + " -x " +
                      quote(std::string(RTRACE_TRACER_PROGRAMS) + "/" + program));
    for (const auto& entry : fs::directory_iterator(out.path())) {
      trace = entry.path();
    }
  }
  ScratchDir out;
  CommandResult run;
  fs::path trace;
};

// The lines of `output` that match `line`, each as `format` of its groups ("$1($2) = $3").
std::vector<std::string> matching(const std::string& output, const std::regex& line,
                                  const std::string& format) {
  std::vector<std::string> found;
  std::istringstream lines(output);
  std::string text;
  std::smatch m;
  while (std::getline(lines, text)) {
    if (std::regex_match(text, m, line)) {
      found.push_back(m.format(format));
    }
  }
  return found;
}

// The records the program announces ("name size 0xblock", "name 0xblock"), as describe() puts
// them, in order.
std::vector<std::string> announced(const std::string& output) {
  static const std::regex record(R"(^(\w+) (?:(\d+) )?(0x[0-9a-f]+)$)");
  std::vector<std::string> records;
  for (const std::string& line : matching(output, record, "$1 $2 $3")) {
    std::istringstream parts(line);
    std::string name;
    std::string size;
    std::string block;
    parts >> name >> size >> block;
    records.push_back(block.empty() ? name + "(" + size + ")" : name + "(" + size + ") = " + block);
  }
  return records;
}

// The records of the trace from the first one the program announced on: the libraries'
// constructors allocate before main (libstdc++'s exception pool, tcmalloc's own set-up).
std::vector<std::string> recorded_from(const TraceDecoder& trace, const std::string& first) {
  std::vector<std::string> records;
  for (const DecodedCall& call : trace.calls) {
    if (!records.empty() || describe(call) == first) {
      records.push_back(describe(call));
    }
  }
  return records;
}

// The leaks `process -l` lists ("name(size) = 0xblock") whose block is among `blocks`: the
// program's own (a block allocated before main and never released cannot be among them: its
// address stays taken).
std::vector<std::string> listed_leaks(const std::string& listing,
                                      const std::set<std::string>& blocks) {
  static const std::regex call(R"(^\d+\. (?:\[[0-9:.]+\] )?(\w+\(\d+\) = (0x[0-9a-f]+))$)");
  std::vector<std::string> leaks;
  std::istringstream lines(listing);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, call) && blocks.contains(m[2].str())) {
      leaks.push_back(m[1].str());
    }
  }
  return leaks;
}

// Checks one program's trace against what it printed; returns the report's text.
std::string check_program(const std::string& program, const std::string& allocator,
                          std::size_t records, std::size_t leaks) {
  const Recorded recorded(program);
  EXPECT_EQ(recorded.run.status, 0) << recorded.run.err;
  EXPECT_NE(recorded.run.out.find("malloc is " + allocator + "'s: yes\n"), std::string::npos)
      << recorded.run.out;
  const std::vector<std::string> expected = announced(recorded.run.out);
  EXPECT_EQ(expected.size(), records) << recorded.run.out;
  if (expected.empty()) {
    return {};
  }
  const TraceDecoder trace = decode_file(recorded.trace.string());
  EXPECT_TRUE(trace.complete()) << trace.error();
  EXPECT_EQ(recorded_from(trace, expected.front()), expected);

  static const std::regex leak(R"(^leaked (\w+) (\d+) (0x[0-9a-f]+)$)");
  const std::vector<std::string> expected_leaks = matching(recorded.run.out, leak, "$1($2) = $3");
  EXPECT_EQ(expected_leaks.size(), leaks);
  std::set<std::string> blocks;
  for (const std::string& line : matching(recorded.run.out, leak, "$3")) {
    blocks.insert(line);
  }
  const CommandResult listing =
      run_command(rtrace_command() + " process -l -i " + quote(recorded.trace));
  EXPECT_EQ(listing.status, 0) << listing.err;
  EXPECT_EQ(listed_leaks(listing.out, blocks), expected_leaks) << listing.out;

  const CommandResult report =
      run_command(rtrace_command() + " report --no-resolve " + quote(recorded.trace));
  EXPECT_EQ(report.status, 0) << report.err;
  return report.out;
}

TEST(OtherAllocators, MimallocsEntryPointsAndItsMallocAreTracedWithExactLeaks) {
  const std::string report = check_program("mimalloc_calls", "mimalloc", 12, 2);
  // mi_malloc's block released by free and malloc's by mi_free are no mismatch: mimalloc is the
  // process's malloc.
  EXPECT_NE(report.find("\nMISMATCHED RELEASES (released by another allocator family)\n  none\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("\nALLOCATORS\n"
                        "  malloc: 1 allocation(s) of 40 bytes, 0 block(s) leaked, 0 bytes\n"
                        "  mimalloc: 6 allocation(s) of 3281 bytes, 2 block(s) leaked, "
                        "3007 bytes\n"),
            std::string::npos)
      << report;
}

TEST(OtherAllocators, JemallocsEntryPointsAndItsMallocAreTracedWithExactLeaks) {
  const std::string report = check_program("jemalloc_calls", "jemalloc", 12, 2);
  EXPECT_NE(report.find("\nMISMATCHED RELEASES (released by another allocator family)\n  none\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("  jemalloc: 6 allocation(s) of 9236 bytes, 2 block(s) leaked, "
                        "4024 bytes\n"),
            std::string::npos)
      << report;
}

TEST(OtherAllocators, TcmallocsEntryPointsAndItsMallocAreTracedWithExactLeaks) {
  const std::string report = check_program("tcmalloc_calls", "tcmalloc", 14, 2);
  // tc_newarray's block released by tc_delete: new[] released by delete.
  EXPECT_NE(report.find("\nMISMATCHED RELEASES (released by another allocator family)\n"
                        "  1 block(s) of 80 B from tc_newarray released by tc_delete, "
                        "allocated from:\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("\nALLOCATORS\n"), std::string::npos) << report;
}

}  // namespace
}  // namespace rtrace::test
