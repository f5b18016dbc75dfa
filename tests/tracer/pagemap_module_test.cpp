// librtrace-pagemap.so end to end: a real program recorded by `rtrace record` (with the memory
// module and alone) mallocs a block of 256 pages, writes non-zero bytes over half of it and zeros
// over a quarter (programs/pagemap_block.c says which pages that makes resident and all-zero).
// The snapshot files must be beside the trace with the documented layout, named by FILE packets
// (`rtrace process` prints them as `& name : file`), and `rtrace report` must count exactly the
// block's pages, and say when the files are missing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "pagemap_files.h"
#include "support/test_paths.h"
#include "trace_decoder.h"
#include "trace_records.h"

namespace rtrace::test {
namespace {

namespace fs = std::filesystem;

std::string quote(const fs::path& p) {
  return "'" + p.string() + "'";
}

std::string rtrace_bin() {
  return quote(build_dir() / "bin" / "rtrace");
}

// The block's mapping as the program printed it, and the page counts it must have.
constexpr std::uint64_t kMappingPages = 257;
constexpr std::uint64_t kResidentPages = 193;  // pages 0 to 192
constexpr std::uint64_t kZeroPages = 64;       // pages 129 to 192

struct Recorded {
  std::string pid;
  std::string base;  // the attachments' stem: <pid>-<n>
  fs::path trace;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t page = 0;
  std::string output;  // what the program printed
  std::string stem(const char* suffix) const { return base + suffix; }
};

// `environment`: more variables for the program, "NAME=value " each.
Recorded record(const ScratchDir& out, const std::string& modules,
                const std::string& arguments = "", const std::string& environment = "") {
  std::vector<fs::path> before;  // traces already there: the new one is the run's
  for (const auto& entry : fs::directory_iterator(out.path())) {
    before.push_back(entry.path());
  }
  const auto run =
      run_command(environment + rtrace_bin() + " record -q -e " + modules + " -o " +
                  quote(out.path()) + " -x " + quote(RTRACE_PAGEMAP_PROGRAM) + " " + arguments);
  EXPECT_EQ(run.status, 0) << run.err;
  Recorded recorded;
  recorded.output = run.out;
  static const std::regex printed(R"(mapping=([0-9a-f]+)-([0-9a-f]+) page=(\d+))");
  std::smatch m;
  EXPECT_TRUE(std::regex_search(run.out, m, printed)) << run.out;
  if (m.empty()) {
    return recorded;
  }
  recorded.start = std::stoull(m[1].str(), nullptr, 16);
  recorded.end = std::stoull(m[2].str(), nullptr, 16);
  recorded.page = std::stoull(m[3].str());
  // The trace is <program>.<pid>.rtrace; the snapshot files beside it <pid>-<n>.<suffix>.
  for (const auto& entry : fs::directory_iterator(out.path())) {
    if (entry.path().extension() == ".rtrace" &&
        std::find(before.begin(), before.end(), entry.path()) == before.end()) {
      recorded.trace = entry.path();
      const std::string name = entry.path().filename().string();
      const std::size_t dot = name.find('.');
      recorded.pid = name.substr(dot + 1, name.find('.', dot + 1) - dot - 1);
    }
  }
  for (const auto& entry : fs::directory_iterator(out.path())) {
    if (entry.path().extension() == ".maps" &&
        entry.path().filename().string().starts_with(recorded.pid + "-") &&
        std::find(before.begin(), before.end(), entry.path()) == before.end()) {
      recorded.base = entry.path().stem().string();
    }
  }
  EXPECT_FALSE(recorded.trace.empty());
  return recorded;
}

std::string hex_range(const char* format, std::uint64_t start, std::uint64_t end) {
  char text[64];
  std::snprintf(text, sizeof text, format, static_cast<unsigned long>(start),
                static_cast<unsigned long>(end));
  return text;
}

// As /proc/<pid>/maps writes a range, and as the report does.
std::string fmt_range(std::uint64_t start, std::uint64_t end) {
  return hex_range("%lx-%lx", start, end);
}
std::string padded_range(std::uint64_t start, std::uint64_t end) {
  return hex_range("%016lx-%016lx", start, end);
}

bool kpageflags_readable() {
  return ::access("/proc/kpageflags", R_OK) == 0;
}

// The files beside the trace, each checked against the layout for the block's mapping.
void expect_snapshot_files(const ScratchDir& out, const Recorded& r) {
  // Readable by their owner only (the page map holds physical frame numbers).
  for (const char* suffix : {".maps", ".pagemap", ".zeropages", ".kpageflags"}) {
    if (suffix != std::string(".kpageflags") || kpageflags_readable()) {
      EXPECT_EQ(fs::status(out / r.stem(suffix)).permissions(),
                fs::perms::owner_read | fs::perms::owner_write)
          << suffix;
    }
  }
  EXPECT_NE(read_file(out / r.stem(".maps")).find(fmt_range(r.start, r.end) + " rw-p "),
            std::string::npos);

  const PagemapFile pagemap = decode_pagemap_file(read_file(out / r.stem(".pagemap")), false);
  ASSERT_EQ(pagemap.error, "");
  EXPECT_EQ(pagemap.magic, "RTPAGEMP");
  EXPECT_EQ(pagemap.page_size, r.page);
  ASSERT_EQ(pagemap.ranges.count(r.start), 1U);
  const PagemapFileRange& entries = pagemap.ranges.at(r.start);
  EXPECT_EQ(entries.end, r.end);
  ASSERT_EQ(entries.words.size(), kMappingPages);
  for (std::uint64_t page = 0; page < kMappingPages; ++page) {
    EXPECT_EQ((entries.words[page] & kPagePresent) != 0, page < kResidentPages) << page;
  }

  const PagemapFile zero = decode_pagemap_file(read_file(out / r.stem(".zeropages")), true);
  ASSERT_EQ(zero.error, "");
  EXPECT_EQ(zero.magic, "RTZEROPG");
  ASSERT_EQ(zero.ranges.count(r.start), 1U);
  const std::vector<std::uint64_t>& bitmap = zero.ranges.at(r.start).words;
  ASSERT_EQ(bitmap.size(), (kMappingPages + 63) / 64);
  for (std::uint64_t page = 0; page < kMappingPages; ++page) {
    EXPECT_EQ(bit(bitmap, page), page >= 129 && page <= 192) << page;
  }

  // /proc/kpageflags: root only. Its file follows the page map's ranges; a page that is not
  // present has no flags, one whose frame the page map names has some.
  ASSERT_EQ(fs::exists(out / r.stem(".kpageflags")), kpageflags_readable());
  if (kpageflags_readable()) {
    const PagemapFile flags = decode_pagemap_file(read_file(out / r.stem(".kpageflags")), false);
    ASSERT_EQ(flags.error, "");
    EXPECT_EQ(flags.magic, "RTKPGFLG");
    ASSERT_EQ(flags.ranges.size(), pagemap.ranges.size());
    const std::vector<std::uint64_t>& words = flags.ranges.at(r.start).words;
    ASSERT_EQ(words.size(), kMappingPages);
    for (std::uint64_t page = 0; page < kMappingPages; ++page) {
      const std::uint64_t entry = entries.words[page];
      const bool framed = (entry & kPagePresent) != 0 && (entry & ((1ULL << 55) - 1)) != 0;
      EXPECT_EQ(words[page] != 0, framed) << page;
    }
  }
}

// The report's row for the block's mapping.
std::string report_row(const std::string& report, const Recorded& r) {
  std::istringstream lines(report);
  std::string line;
  const std::string range = "  " + padded_range(r.start, r.end) + " ";
  while (std::getline(lines, line)) {
    if (line.starts_with(range)) {
      return line;
    }
  }
  return {};
}

std::string rtrace(const std::string& arguments) {
  const auto run = run_command(rtrace_bin() + " " + arguments);
  EXPECT_EQ(run.status, 0) << run.err;
  return run.out;
}

void expect_report_counts(const Recorded& r) {
  const std::string report = rtrace("report " + quote(r.trace));
  const std::string row = report_row(report, r);
  // mapping, mode, size, pages, resident, all-zero, path
  static const std::regex columns(R"(^  \S+ rw-p +\S+ \S+ +(\d+) +(\d+) +(\d+)  \[anonymous\]$)");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(row, m, columns)) << report;
  EXPECT_EQ(m[1].str(), std::to_string(kMappingPages));
  EXPECT_EQ(m[2].str(), std::to_string(kResidentPages));
  EXPECT_EQ(m[3].str(), std::to_string(kZeroPages));
  EXPECT_NE(report.find("\nPAGES (private writable mappings when tracing stopped"),
            std::string::npos);
  EXPECT_TRUE(
      std::regex_search(report, std::regex(R"(\n  total: \d+ mapping\(s\), .* all-zero \()")))
      << report;
  // --json: the same numbers under "pagemap".
  const std::string json = rtrace("report --json " + quote(r.trace));
  EXPECT_NE(
      json.find(R"({"start": )" + std::to_string(r.start) + R"(, "end": )" + std::to_string(r.end) +
                R"(, "mode": "rw-p", "path": "", "pages": 257, )"
                R"("resident": 193, "all_zero": 64})"),
      std::string::npos)
      << json;
}

std::vector<std::string> attachment_lines(const Recorded& r) {
  std::vector<std::string> lines;
  std::istringstream text(rtrace("process -i " + quote(r.trace)));
  std::string line;
  while (std::getline(text, line)) {
    if (line.starts_with("& ")) {
      lines.push_back(line);
    }
  }
  return lines;
}

std::vector<std::string> expected_attachment_lines(const Recorded& r) {
  std::vector<std::string> lines{"& maps : " + r.stem(".maps"),
                                 "& pagemap : " + r.stem(".pagemap")};
  if (kpageflags_readable()) {
    lines.push_back("& kpageflags : " + r.stem(".kpageflags"));
  }
  lines.push_back("& zeropages : " + r.stem(".zeropages"));
  return lines;
}

// The snapshot files, the FILE packets naming them and the report's counts, all checked; then
// the trace itself, decoded.
TraceDecoder checked_snapshot_and_trace(const ScratchDir& out, const Recorded& r) {
  expect_snapshot_files(out, r);
  EXPECT_EQ(attachment_lines(r), expected_attachment_lines(r));
  expect_report_counts(r);
  TraceDecoder trace = decode_file(r.trace.string());
  EXPECT_TRUE(trace.complete()) << trace.error();
  return trace;
}

TEST(PagemapModule, WithTheMemoryModuleAttachesTheSnapshotAndReportsTheBlocksPages) {
  const ScratchDir out;
  const Recorded r = record(out, "memory:pagemap");
  ASSERT_FALSE(r.trace.empty());
  // The block is in the memory module's records as well.
  const TraceDecoder trace = checked_snapshot_and_trace(out, r);
  bool block_seen = false;
  for (const DecodedCall& call : trace.calls) {
    block_seen = block_seen || (call.name == "malloc" && call.size == 256 * r.page);
  }
  EXPECT_TRUE(block_seen);
}

TEST(PagemapModule, AloneRecordsNoCallsAndTheSameSnapshot) {
  const ScratchDir out;
  const Recorded r = record(out, "pagemap");
  ASSERT_FALSE(r.trace.empty());
  const TraceDecoder trace = decode_file(r.trace.string());
  EXPECT_TRUE(trace.complete()) << trace.error();
  EXPECT_EQ(trace.call_count, 0U);
  ASSERT_EQ(trace.modules.size(), 2U);
  EXPECT_EQ(trace.modules[1].second, "pagemap 1.0");
  expect_snapshot_files(out, r);
  EXPECT_EQ(attachment_lines(r), expected_attachment_lines(r));
  expect_report_counts(r);
}

// With the file module (before it, and the memory module after it): the same snapshot, written
// by the tracer itself (none of its file calls in the trace), and the fd and fp records exactly
// the program's own (programs/announce_files.h).
TEST(PagemapModule, WithTheFileModuleTheSnapshotIsTheSameAndTheFileRecordsExact) {
  const ScratchDir out;
  const ScratchDir files;
  const Recorded r =
      record(out, "file:pagemap:memory", "", "ANNOUNCE_FILES_IN=" + quote(files.path()) + " ");
  ASSERT_FALSE(r.trace.empty());
  const TraceDecoder trace = checked_snapshot_and_trace(out, r);
  EXPECT_EQ(trace.resources,
            (std::vector<std::string>{"1 0 fd (file descriptor)", "2 0 fp (file pointer)",
                                      "3 0 memory (memory allocation in bytes)"}));
  const std::vector<std::string> fd = announced_files(r.output, {"open", "close"});
  ASSERT_EQ(fd.size(), 2U) << r.output;
  EXPECT_EQ(describe_objects(trace, 1), fd);
  const std::vector<std::string> fp = announced_files(r.output, {"fopen", "fclose"});
  ASSERT_EQ(fp.size(), 2U) << r.output;
  EXPECT_EQ(describe_objects(trace, 2), fp);
}

// `rtrace report DIR`: the snapshot files beside the traces are their attachments, shown in
// their traces' reports (PAGES), not warned about as files that are not traces; a file named like
// one with no trace of that name beside it still is.
TEST(PagemapModule, ReportOfADirectoryTakesTheSnapshotFilesAsTheTracesAttachments) {
  const ScratchDir out;
  const Recorded first = record(out, "memory:pagemap");
  const Recorded second = record(out, "pagemap");
  ASSERT_FALSE(first.trace.empty());
  ASSERT_FALSE(second.trace.empty());  // a pid used again: <pid>-1, named apart all the same
  write_file(out / "12345-0.maps", "not beside any trace\n");
  const auto run = run_command(rtrace_bin() + " report " + quote(out.path()));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "rtrace: " + (out / "12345-0.maps").string() + ": not a trace, skipped\n");
  const std::size_t files = kpageflags_readable() ? 8 : 6;
  EXPECT_TRUE(run.out.starts_with("rtrace report: " + out.path().string() +
                                  ": every trace, 2 of them, by name (" + std::to_string(files) +
                                  " attachment file(s) beside them, in their traces' reports)\n"))
      << run.out;
  // Each trace's report has the PAGES section of its own snapshot.
  for (const Recorded* r : {&first, &second}) {
    const std::size_t at = run.out.find("\n== " + r->trace.string() + " (");
    ASSERT_NE(at, std::string::npos) << run.out;
    const std::size_t next = run.out.find("\n== ", at + 1);
    const std::string report = run.out.substr(at, next - at);
    EXPECT_NE(report.find("\nPAGES (private writable mappings when tracing stopped"),
              std::string::npos)
        << report;
    EXPECT_NE(report_row(report, *r), "") << report;
  }
}

// _exit (the async-signal-safe end of the trace) writes the snapshot too.
TEST(PagemapModule, AtUnderscoreExit) {
  const ScratchDir out;
  const Recorded r = record(out, "memory:pagemap", "_exit");
  ASSERT_FALSE(r.trace.empty());
  expect_snapshot_files(out, r);
  expect_report_counts(r);
}

TEST(PagemapModule, TheReportSaysWhichAttachmentsAreMissing) {
  const ScratchDir out;
  const Recorded r = record(out, "pagemap");
  ASSERT_FALSE(r.trace.empty());
  fs::remove(out / r.stem(".zeropages"));
  std::string report = rtrace("report " + quote(r.trace));
  EXPECT_NE(report.find("  " + (out / r.stem(".zeropages")).string() +
                        ": missing (the trace names it as an attachment)\n"),
            std::string::npos)
      << report;
  EXPECT_TRUE(std::regex_search(report_row(report, r), std::regex(R"( 257 +193 +\?  )"))) << report;

  // A link in its place is not followed.
  fs::create_symlink(out / r.stem(".pagemap"), out / r.stem(".zeropages"));
  report = rtrace("report " + quote(r.trace));
  EXPECT_NE(report.find("  " + (out / r.stem(".zeropages")).string() +
                        ": a symbolic link, not the module's file: not followed\n"),
            std::string::npos)
      << report;

  fs::remove(out / r.stem(".pagemap"));
  report = rtrace("report " + quote(r.trace));
  EXPECT_NE(report.find("  " + (out / r.stem(".pagemap")).string() +
                        ": missing (the trace names it as an attachment)\n"),
            std::string::npos)
      << report;
  EXPECT_EQ(report_row(report, r), "");
}

// Managed mode (no recorder: the snapshot goes to the managed directory), tracing toggled on and
// off twice: one snapshot per trace, each named by its own trace.
TEST(PagemapModule, EachToggledTraceHasItsOwnSnapshotInManagedMode) {
  const ScratchDir out;
  const std::string libs = RTRACE_TRACER_LIBS;
  const auto run = run_command(
      "LD_PRELOAD=" + libs + "/librtrace-main.so:" + libs + "/librtrace-memory.so:" + libs +
      "/librtrace-pagemap.so RTRACE_OPTIONS='start=0,managed=" + out.path().string() + "' " +
      quote(RTRACE_TOGGLE_PROGRAM));
  ASSERT_EQ(run.status, 0) << run.err;
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(out.path())) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  ASSERT_FALSE(names.empty());
  const std::string pid = names.front().substr(0, names.front().find('-'));
  std::vector<std::string> expected;
  for (const char* stem : {"-0", "-1"}) {
    for (const char* suffix : {".kpageflags", ".maps", ".pagemap", ".rtrace", ".zeropages"}) {
      if (std::string(suffix) != ".kpageflags" || kpageflags_readable()) {
        expected.push_back(pid + stem + suffix);
      }
    }
  }
  EXPECT_EQ(names, expected);
  for (const char* stem : {"-0", "-1"}) {
    std::istringstream text(rtrace("process -i " + quote(out / (pid + stem + ".rtrace"))));
    std::string line;
    std::vector<std::string> attached;
    while (std::getline(text, line)) {
      if (line.starts_with("& ")) {
        attached.push_back(line.substr(line.find(" : ") + 3));
      }
    }
    ASSERT_FALSE(attached.empty());
    for (const std::string& file : attached) {
      EXPECT_TRUE(file.starts_with(pid + stem + ".")) << file;
    }
  }
}

// Damaged attachments: the file and the byte offset, and no crash.
TEST(PagemapModule, TheReportNamesTheDamageInAnAttachment) {
  const ScratchDir out;
  const Recorded r = record(out, "pagemap");
  ASSERT_FALSE(r.trace.empty());
  const fs::path pagemap = out / r.stem(".pagemap");
  std::string bytes = read_file(pagemap);
  write_file(pagemap, bytes.substr(0, bytes.size() - 5));
  std::string report = rtrace("report " + quote(r.trace));
  EXPECT_TRUE(std::regex_search(
      report, std::regex("  " + pagemap.string() +
                         R"(:\d+: range 0x[0-9a-f]+-0x[0-9a-f]+ has \d+ pages, more than the )"
                         R"(rest of the file holds\n)")))
      << report;
  write_file(pagemap,
             "RTPAGEMP" + bytes.substr(8, 8) + std::string(8, '\0') + std::string(8, '\xff'));
  report = rtrace("report " + quote(r.trace));
  EXPECT_NE(report.find("  " + pagemap.string() + ":16: range 0x0-0xffffffffffffffff "),
            std::string::npos)
      << report;
}

}  // namespace
}  // namespace rtrace::test
