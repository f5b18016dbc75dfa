// rtrace's leak totals against valgrind memcheck's on the same programs: each program runs once
// under `valgrind --leak-check=full --show-leak-kinds=all` and once under `rtrace record`, and
// `rtrace report` must count exactly the blocks and bytes memcheck counts as definitely,
// indirectly or possibly lost or still reachable (every block: rtrace's default suppressions
// are off here; tests/reports/suppressions_cli_test.cpp compares what they take).
//
// Memcheck's exit-time clean-ups (glibc's __libc_freeres, libstdc++'s __gnu_cxx::__freeres) are
// switched off: they free libc's and libstdc++'s own buffers (stdout's, the exception emergency
// pool) only because valgrind asks, so a program traced by rtrace, like one run alone, still holds
// them at exit.
//
// One difference is known and checked apart: each thread's dynamic thread vector (DTV, allocated
// by ld.so's allocate_dtv when a thread starts) has one slot per module with thread-local
// storage, and the tracer's libraries are such modules, so under rtrace those blocks are larger.
// They must be as many under both tools; the totals must agree once they are set aside.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <regex>
#include <sstream>
#include <string>

#include "support/test_paths.h"

namespace rtrace::test {
namespace {

namespace fs = std::filesystem;

struct LeakTotals {
  std::uint64_t blocks = 0;
  std::uint64_t bytes = 0;
};

LeakTotals operator-(const LeakTotals& a, const LeakTotals& b) {
  return {a.blocks - b.blocks, a.bytes - b.bytes};
}

// What both tools say about a program: all blocks left at exit, and the DTVs among them.
struct Leaks {
  LeakTotals all;
  LeakTotals dtv;
};

bool operator==(const LeakTotals& a, const LeakTotals& b) {
  return a.blocks == b.blocks && a.bytes == b.bytes;
}

std::ostream& operator<<(std::ostream& out, const LeakTotals& totals) {
  return out << totals.bytes << " bytes in " << totals.blocks << " blocks";
}

std::uint64_t without_commas(std::string digits) {
  std::erase(digits, ',');
  return std::stoull(digits);
}

// Memcheck's LEAK SUMMARY, every kind but "suppressed" (no suppressions are given).
LeakTotals memcheck_totals(const std::string& log) {
  LeakTotals totals;
  const std::regex kind(
      R"((definitely lost|indirectly lost|possibly lost|still reachable): ([0-9,]+) bytes in ([0-9,]+) blocks)");
  int kinds = 0;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), kind); it != std::sregex_iterator();
       ++it) {
    totals.bytes += without_commas((*it)[2].str());
    totals.blocks += without_commas((*it)[3].str());
    ++kinds;
  }
  if (kinds == 0) {
    EXPECT_NE(log.find("All heap blocks were freed -- no leaks are possible"), std::string::npos)
        << log;
  } else {
    EXPECT_EQ(kinds, 4) << log;
  }
  return totals;
}

// The loss records whose allocation stack goes through ld.so's allocate_dtv.
LeakTotals memcheck_dtv(const std::string& log) {
  LeakTotals totals;
  const std::regex record(R"(== ([0-9,]+) bytes in ([0-9,]+) blocks are [a-z ]+ in loss record)");
  std::istringstream lines(log);
  LeakTotals current;
  bool in_record = false;  // on the stack lines of a loss record not counted yet
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, record)) {
      current = {without_commas(match[2].str()), without_commas(match[1].str())};
      in_record = true;
    } else if (in_record && line.find("allocate_dtv") != std::string::npos) {
      totals.blocks += current.blocks;
      totals.bytes += current.bytes;
      in_record = false;
    } else if (line.find(" at 0x") == std::string::npos &&
               line.find(" by 0x") == std::string::npos) {
      in_record = false;
    }
  }
  return totals;
}

Leaks run_memcheck(const ScratchDir& scratch, const std::string& command) {
  const fs::path log = scratch / "memcheck.log";
  const CommandResult result = run_command(
      "valgrind --tool=memcheck --leak-check=full --show-leak-kinds=all --run-libc-freeres=no "
      "--run-cxx-freeres=no --log-file='" +
      log.string() + "' " + command);
  EXPECT_EQ(result.status, 0) << result.err;
  const std::string text = read_file(log);
  return {memcheck_totals(text), memcheck_dtv(text)};
}

// The groups of `rtrace process -l -c | rtrace resolve` whose backtrace goes through
// allocate_dtv; all groups in `all`.
Leaks grouped_leaks(const std::string& rtrace, const fs::path& trace) {
  const CommandResult grouped =
      run_command(rtrace + " process -l -c --no-default-suppressions -i '" + trace.string() +
                  "' | " + rtrace + " resolve");
  EXPECT_EQ(grouped.status, 0) << grouped.err;
  Leaks leaks;
  const std::regex summary(R"(^# allocation summary: (\d+) block\(s\) with total size (\d+)$)");
  std::istringstream lines(grouped.out);
  LeakTotals current;
  bool in_group = false;  // on the frames of a group not counted as a DTV yet
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_match(line, match, summary)) {
      current = {std::stoull(match[1].str()), std::stoull(match[2].str())};
      leaks.all.blocks += current.blocks;
      leaks.all.bytes += current.bytes;
      in_group = true;
    } else if (in_group && line.find("allocate_dtv") != std::string::npos) {
      leaks.dtv.blocks += current.blocks;
      leaks.dtv.bytes += current.bytes;
      in_group = false;
    } else if (!line.starts_with("\t")) {
      in_group = false;
    }
  }
  return leaks;
}

Leaks run_rtrace(const ScratchDir& scratch, const std::string& command) {
  const std::string rtrace = "'" + (build_dir() / "bin" / "rtrace").string() + "'";
  const fs::path traces = scratch / "traces";
  fs::create_directories(traces);
  const CommandResult recorded =
      run_command(rtrace + " record -q -s -e memory -o '" + traces.string() + "' -x " + command);
  EXPECT_EQ(recorded.status, 0) << recorded.err;
  const auto files = fs::directory_iterator(traces);
  if (files == fs::directory_iterator()) {
    ADD_FAILURE() << "no trace written";
    return {};
  }
  const fs::path trace = files->path();
  const CommandResult report = run_command(
      rtrace + " report --no-resolve --no-default-suppressions '" + trace.string() + "'");
  EXPECT_EQ(report.status, 0) << report.err;
  std::smatch match;
  const std::regex leaks(R"(\n  memory: (\d+) block\(s\) leaked, (\d+) bytes\n)");
  if (!std::regex_search(report.out, match, leaks)) {
    ADD_FAILURE() << "no leak totals in the report:\n" << report.out;
    return {};
  }
  const LeakTotals reported{std::stoull(match[1].str()), std::stoull(match[2].str())};
  const Leaks grouped = grouped_leaks(rtrace, trace);
  EXPECT_EQ(grouped.all, reported);  // the report and the leaks filter count the same blocks
  return {reported, grouped.dtv};
}

void expect_agreement(const std::string& command) {
  SCOPED_TRACE(command);
  ScratchDir scratch;
  const Leaks memcheck = run_memcheck(scratch, command);
  const Leaks rtrace = run_rtrace(scratch, command);
  EXPECT_EQ(rtrace.all.blocks, memcheck.all.blocks);
  EXPECT_EQ(rtrace.all - rtrace.dtv, memcheck.all - memcheck.dtv);
  EXPECT_EQ(rtrace.dtv.blocks, memcheck.dtv.blocks);
  EXPECT_GT(memcheck.all.blocks, 0U);  // every program here leaks something
}

std::string tracer_program(const std::string& name) {
  return "'" + std::string(RTRACE_TRACER_PROGRAMS) + "/" + name + "'";
}

// The bundled example: strdup, calloc, a realloc'd log, a scratch buffer, stdout's buffer.
TEST(ValgrindAgreement, LeakyExample) {
  expect_agreement("'" + (build_dir() / "examples" / "leaky").string() + "'");
}

// Every leak kind memcheck knows, from malloc, calloc, realloc, new and new[], in four threads.
TEST(ValgrindAgreement, EveryLeakKindFromCAndCxxAllocatorsInThreads) {
  expect_agreement(tracer_program("leak_kinds"));
}

// (memory_calls, every C allocation function once, is not compared: memcheck 3.19 stops the
// program at its call of pvalloc, "Program aborting because of call to pvalloc".)

// Every C++ operator new and delete form.
TEST(ValgrindAgreement, CxxOperators) {
  expect_agreement(tracer_program("cxx_operators"));
}

// Eight threads freeing each other's blocks, a known set kept on purpose.
TEST(ValgrindAgreement, CrossThreadFreesThroughQueues) {
  expect_agreement(tracer_program("queue_threads") + " 8 2000");
}

// How many allocations and releases of how many bytes: memcheck's "total heap usage" (a realloc
// is an allocation and a release), `rtrace report`'s TOTALS.
struct HeapUsage {
  std::uint64_t allocations = 0;
  std::uint64_t releases = 0;
  std::uint64_t bytes = 0;
};

bool operator==(const HeapUsage& a, const HeapUsage& b) {
  return a.allocations == b.allocations && a.releases == b.releases && a.bytes == b.bytes;
}

std::ostream& operator<<(std::ostream& out, const HeapUsage& usage) {
  return out << usage.allocations << " allocations, " << usage.releases << " releases, "
             << usage.bytes << " bytes";
}

HeapUsage memcheck_usage(const ScratchDir& scratch, const std::string& command) {
  const fs::path log = scratch / "usage.log";
  const CommandResult result = run_command(
      "valgrind --tool=memcheck --run-libc-freeres=no --run-cxx-freeres=no --log-file='" +
      log.string() + "' " + command);
  EXPECT_EQ(result.status, 0) << result.err;
  const std::string text = read_file(log);
  std::smatch match;
  const std::regex usage(R"(total heap usage: ([0-9,]+) allocs, ([0-9,]+) frees, ([0-9,]+) bytes)");
  if (!std::regex_search(text, match, usage)) {
    ADD_FAILURE() << "no heap usage in memcheck's log:\n" << text;
    return {};
  }
  return {without_commas(match[1].str()), without_commas(match[2].str()),
          without_commas(match[3].str())};
}

HeapUsage rtrace_usage(const ScratchDir& scratch, const std::string& command) {
  const std::string rtrace = "'" + (build_dir() / "bin" / "rtrace").string() + "'";
  const fs::path traces = scratch / "usage";
  fs::create_directories(traces);
  const CommandResult recorded =
      run_command(rtrace + " record -q -s -e memory -o '" + traces.string() + "' -x " + command);
  EXPECT_EQ(recorded.status, 0) << recorded.err;
  const auto files = fs::directory_iterator(traces);
  if (files == fs::directory_iterator()) {
    ADD_FAILURE() << "no trace written";
    return {};
  }
  const CommandResult report =
      run_command(rtrace + " report --no-resolve '" + files->path().string() + "'");
  EXPECT_EQ(report.status, 0) << report.err;
  std::smatch match;
  const std::regex totals(
      R"(\n  memory \(memory allocation in bytes\): \d+ calls, (\d+) allocations of (\d+) bytes, (\d+) releases,)");
  if (!std::regex_search(report.out, match, totals)) {
    ADD_FAILURE() << "no totals in the report:\n" << report.out;
    return {};
  }
  return {std::stoull(match[1].str()), std::stoull(match[3].str()), std::stoull(match[2].str())};
}

// A library loaded with RTLD_DEEPBIND allocates and releases (strdup, malloc, realloc, calloc,
// free): each of its calls is seen, as memcheck counts them (the program's own and those of the
// dynamic linker's dlopen), and only the one block it keeps is left.
TEST(ValgrindAgreement, LibraryLoadedWithDeepBind) {
  const std::string command =
      tracer_program("deep_bound_program") + " " + tracer_program("libdeep_bound_library.so");
  expect_agreement(command);
  const ScratchDir scratch;
  const HeapUsage memcheck = memcheck_usage(scratch, command);
  EXPECT_EQ(rtrace_usage(scratch, command), memcheck);
  EXPECT_GE(memcheck.allocations, 32U);  // the program's own: strdup, 10 x 3, the kept block
  EXPECT_GE(memcheck.releases, 31U);
}

// ---- leak kinds: `rtrace record --leak-check` against memcheck, kind by kind ----------------

// The four kinds of a LEAK SUMMARY in valgrind's words (memcheck's log, rtrace report's text).
struct KindTotals {
  LeakTotals definite;
  LeakTotals indirect;
  LeakTotals possible;
  LeakTotals reachable;
};

KindTotals summary_kinds(const std::string& text) {
  KindTotals kinds;
  const std::regex line(
      R"((definitely lost|indirectly lost|possibly lost|still reachable): ([0-9,]+) bytes in ([0-9,]+) blocks)");
  int found = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator();
       ++it) {
    const LeakTotals totals{without_commas((*it)[3].str()), without_commas((*it)[2].str())};
    const std::string kind = (*it)[1].str();
    (kind == "definitely lost"   ? kinds.definite
     : kind == "indirectly lost" ? kinds.indirect
     : kind == "possibly lost"   ? kinds.possible
                                 : kinds.reachable) = totals;
    ++found;
  }
  EXPECT_EQ(found, 4) << text;
  return kinds;
}

// Every kind of leak_shapes.cpp's blocks the same under both tools, with one documented rule:
// the waiting thread's DTV (glibc keeps a pointer one entry past its start, so both tools call it
// possibly lost) has a slot for each module with thread-local storage, and the tracer's
// libraries are such modules: its bytes differ (the existing rule of this file), its count not.
TEST(ValgrindAgreement, LeakKindsOfChainsCyclesTreesInteriorPointersStacksAndTls) {
  const std::string command = tracer_program("leak_shapes");
  ScratchDir scratch;
  const fs::path log = scratch / "memcheck.log";
  const CommandResult memcheck_run = run_command(
      "valgrind --tool=memcheck --leak-check=full --show-leak-kinds=all --run-libc-freeres=no "
      "--run-cxx-freeres=no --log-file='" +
      log.string() + "' " + command);
  ASSERT_EQ(memcheck_run.status, 0) << memcheck_run.err;
  const std::string memcheck_log = read_file(log);
  const KindTotals memcheck = summary_kinds(memcheck_log);
  const LeakTotals memcheck_dtv_totals = memcheck_dtv(memcheck_log);

  const std::string rtrace = "'" + (build_dir() / "bin" / "rtrace").string() + "'";
  const fs::path traces = scratch / "traces";
  fs::create_directories(traces);
  const CommandResult recorded = run_command(rtrace + " record -q -s --leak-check -e memory -o '" +
                                             traces.string() + "' -x " + command);
  ASSERT_EQ(recorded.status, 0) << recorded.err;
  const fs::path trace = fs::directory_iterator(traces)->path();
  const CommandResult report = run_command(
      rtrace + " report --no-resolve --no-default-suppressions '" + trace.string() + "'");
  ASSERT_EQ(report.status, 0) << report.err;
  // The summary only: LEAKS BY KIND before it says each kind's totals in the same words.
  const std::size_t summary = report.out.find("\nLEAK SUMMARY:\n");
  ASSERT_NE(summary, std::string::npos) << report.out;
  const KindTotals ours = summary_kinds(report.out.substr(summary));
  const Leaks grouped = grouped_leaks(rtrace, trace);

  EXPECT_EQ(ours.definite, memcheck.definite);
  EXPECT_EQ(ours.indirect, memcheck.indirect);
  EXPECT_EQ(ours.reachable, memcheck.reachable);
  EXPECT_EQ(ours.possible.blocks, memcheck.possible.blocks);
  EXPECT_EQ(grouped.dtv.blocks, memcheck_dtv_totals.blocks);
  EXPECT_EQ(ours.possible - grouped.dtv, memcheck.possible - memcheck_dtv_totals);
  // What the program leaves on purpose: 3 definitely lost roots, 11 blocks behind them.
  EXPECT_EQ(memcheck.definite, (LeakTotals{3, 120}));
  EXPECT_EQ(memcheck.indirect, (LeakTotals{11, 440}));
}

}  // namespace
}  // namespace rtrace::test
