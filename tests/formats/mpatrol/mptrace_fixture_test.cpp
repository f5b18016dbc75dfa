// rtrace mptrace on every trace of fixtures/mpatrol, through the library and through the built
// `rtrace` command: the outputs are mptrace-fixed's, byte for byte (the tool names itself
// `rtrace mptrace`), except on the damaged edge files where rtrace-mptrace(1) documents better
// behaviour (a trace without its end marker is read to its last complete record; a 32-bit
// writer's header is understood).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "formats/mpatrol/mpatrol_decoder.h"
#include "formats/mpatrol/mpatrol_test_support.h"
#include "formats/mpatrol/mptrace_report.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/output_stream.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::fixture;
using test::read_file;
using test::run_command;
using test::ScratchDir;

std::string rtrace_bin() {
  return (test::build_dir() / "bin" / "rtrace").string();
}
std::string quote(const std::filesystem::path& p) {
  return "'" + p.string() + "'";
}

// mptrace-fixed names itself in the HATF header and the simulation program's first comment.
std::string with_our_name(std::string text) {
  const std::string theirs = "by mptrace-fixed 1.4";
  const auto at = text.find(theirs);
  if (at != std::string::npos) {
    text.replace(at, theirs.size(), "by rtrace mptrace 1.4");
  }
  return text;
}

enum class Mode { Plain, Verbose, VerboseSource, SideFiles };

struct ToolRun {
  std::string out = {};
  std::string hatf = {};
  std::string sim = {};
  std::string err = {};  // warnings, then the error if any
  int status = 0;
};

// The library: decoder + report, as the command wires them, into files of a scratch directory.
ToolRun run_library(const std::filesystem::path& trace, Mode mode) {
  const ScratchDir dir;
  ToolRun run;
  CollectingDiagnostics diagnostics;
  {
    OutputStream out((dir / "out").string(), {});
    OutputStream hatf((dir / "hatf").string(), {});
    OutputStream sim((dir / "sim").string(), {});
    const bool side = mode == Mode::SideFiles;
    mpatrol::MptraceOptions options{.verbose = mode == Mode::Verbose || mode == Mode::VerboseSource,
                                    .source = mode == Mode::VerboseSource,
                                    .trace_name = trace.filename().string(),
                                    .hatf_name = "mptrace-fixed.hatf"};
    const std::string name = trace.filename().string();
    const auto input = open_input(std::make_unique<MemorySource>(read_file(trace)), name);
    mpatrol::MptraceReport report(options, out, side ? &hatf : nullptr, side ? &sim : nullptr,
                                  diagnostics, trace.filename().string());
    try {
      mpatrol::decode(*input, report, diagnostics);
    } catch (const InputError& error) {
      report.abandon();
      run.status = 1;
      run.err = error.what();
    }
    out.commit();
    hatf.commit();
    sim.commit();
  }
  run.out = read_file(dir / "out");
  if (mode == Mode::SideFiles) {
    run.hatf = read_file(dir / "hatf");
    run.sim = read_file(dir / "sim");
  }
  run.err = diagnostics.text() + run.err;
  return run;
}

// The command, run in a directory holding a copy of the trace (so it is named as in the fixtures).
ToolRun run_cli(const std::filesystem::path& trace, Mode mode) {
  const ScratchDir dir;
  std::filesystem::copy_file(trace, dir / trace.filename());
  std::string options;
  switch (mode) {
    case Mode::Plain:
      break;
    case Mode::Verbose:
      options = " --verbose";
      break;
    case Mode::VerboseSource:
      options = " --verbose --source";
      break;
    case Mode::SideFiles:
      options = " --hatf-file=mptrace-fixed.hatf --sim-file=mptrace-fixed.sim.c";
      break;
  }
  const auto r = run_command("cd " + quote(dir.path()) + " && " + rtrace_bin() + " mptrace" +
                             options + " " + trace.filename().string());
  ToolRun run{.out = r.out, .err = r.err, .status = r.status};
  if (mode == Mode::SideFiles && std::filesystem::exists(dir / "mptrace-fixed.hatf")) {
    run.hatf = read_file(dir / "mptrace-fixed.hatf");
    run.sim = read_file(dir / "mptrace-fixed.sim.c");
  }
  return run;
}

// The library's warnings read `FILE:N: warning: ...`; the command's `rtrace: FILE:N: warning:`.
std::string cli_messages(const std::string& library_messages) {
  std::string out;
  std::size_t start = 0;
  while (start < library_messages.size()) {
    const std::size_t end = library_messages.find('\n', start);
    out += "rtrace: " + library_messages.substr(start, end - start + 1);
    start = end + 1;
  }
  return out;
}

struct Expected {
  std::string out = {};
  std::string hatf = {};
  std::string sim = {};
  std::string err = {};  // as the library reports it
  int status = 0;
};

void check_both(const std::string& trace, Mode mode, const Expected& expected) {
  const auto path = fixture("mpatrol/" + trace);
  for (const bool cli : {false, true}) {
    SCOPED_TRACE(cli ? "rtrace mptrace command" : "library");
    const ToolRun run = cli ? run_cli(path, mode) : run_library(path, mode);
    EXPECT_EQ(run.status, expected.status) << run.err;
    EXPECT_EQ(run.out, expected.out);
    EXPECT_EQ(run.hatf, expected.hatf);
    EXPECT_EQ(run.sim, expected.sim);
    EXPECT_EQ(run.err, cli ? cli_messages(expected.err) : expected.err);
  }
}

Expected fixed_output(const std::string& file) {
  return {.out = read_file(fixture("mpatrol/" + file))};
}

// ---- basic, cxx, threads: exactly mptrace-fixed's outputs ----

class RealTraces : public testing::TestWithParam<const char*> {};

TEST_P(RealTraces, PlainStatistics) {
  const std::string c = GetParam();
  check_both(c + "/" + c + ".trace", Mode::Plain, fixed_output(c + "/mptrace-fixed.txt"));
}

TEST_P(RealTraces, VerboseTable) {
  const std::string c = GetParam();
  check_both(c + "/" + c + ".trace", Mode::Verbose, fixed_output(c + "/mptrace-fixed-verbose.txt"));
}

TEST_P(RealTraces, VerboseTableWithSourceLines) {
  const std::string c = GetParam();
  check_both(c + "/" + c + ".trace", Mode::VerboseSource,
             fixed_output(c + "/mptrace-fixed-verbose-source.txt"));
}

TEST_P(RealTraces, HatfFileAndSimulationProgram) {
  const std::string c = GetParam();
  Expected expected = fixed_output(c + "/mptrace-fixed-hatf-sim.txt");
  expected.hatf = with_our_name(read_file(fixture("mpatrol/" + c + "/mptrace-fixed.hatf")));
  expected.sim = with_our_name(read_file(fixture("mpatrol/" + c + "/mptrace-fixed.sim.c")));
  check_both(c + "/" + c + ".trace", Mode::SideFiles, expected);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RealTraces, testing::Values("basic", "cxx", "threads"));

// ---- edge/: where mptrace-fixed reads the file, the same output ----

TEST(EdgeTraces, Version144LayoutReadsWithoutSourceFields) {
  for (const Mode mode : {Mode::Plain, Mode::Verbose, Mode::VerboseSource}) {
    const std::string expected = mode == Mode::Plain
                                     ? "edge/e05_version_1_4_4_format.mptrace-fixed.txt"
                                     : "edge/e05_version_1_4_4_format.mptrace-fixed-verbose-"
                                       "source.txt";
    check_both("edge/e05_version_1_4_4_format.trace", mode, fixed_output(expected));
  }
  // The same events as basic: its verbose table without the source lines.
  EXPECT_EQ(read_file(fixture("mpatrol/edge/e05_version_1_4_4_format.mptrace-fixed-verbose-"
                              "source.txt")),
            read_file(fixture("mpatrol/basic/mptrace-fixed-verbose.txt")));
}

TEST(EdgeTraces, BigEndianHeaderReadsLikeBasic) {
  check_both("edge/e06_big_endian_header.trace", Mode::Plain,
             fixed_output("edge/e06_big_endian_header.mptrace-fixed.txt"));
  check_both("edge/e06_big_endian_header.trace", Mode::VerboseSource,
             fixed_output("edge/e06_big_endian_header.mptrace-fixed-verbose-source.txt"));
}

TEST(EdgeTraces, EmptyTraceHasZeroStatistics) {
  check_both("edge/e09_empty_no_events.trace", Mode::Plain,
             fixed_output("edge/e09_empty_no_events.mptrace-fixed.txt"));
  check_both("edge/e09_empty_no_events.trace", Mode::VerboseSource,
             fixed_output("edge/e09_empty_no_events.mptrace-fixed-verbose-source.txt"));
}

// ---- edge/: damaged files ----

TEST(EdgeTraces, BadMagicIsAnErrorWithNoOutput) {
  // mptrace: "Invalid file format", exit 1, nothing on stdout.
  ASSERT_EQ(read_file(fixture("mpatrol/edge/e03_bad_magic.mptrace-fixed.txt")), "");
  ASSERT_EQ(read_file(fixture("mpatrol/edge/e03_bad_magic.mptrace-fixed-verbose-source.txt")), "");
  const Expected expected{
      .err = "e03_bad_magic.trace:0: not an mpatrol tracing file (it does not start with MTRC)",
      .status = 1};
  for (const Mode mode : {Mode::Plain, Mode::VerboseSource}) {
    const auto path = fixture("mpatrol/edge/e03_bad_magic.trace");
    const ToolRun lib = run_library(path, mode);
    EXPECT_EQ(lib.status, 1);
    EXPECT_EQ(lib.out, "");
    EXPECT_EQ(lib.err, expected.err);
    const ToolRun cli = run_cli(path, mode);
    EXPECT_EQ(cli.status, 1);
    EXPECT_EQ(cli.out, "");
    EXPECT_EQ(cli.err, "rtrace: " + expected.err + "\n");
  }
}

TEST(EdgeTraces, UnknownRecordByteKeepsTheRowsBeforeItAndFails) {
  // As mptrace-fixed: the I/H rows, then an error; no statistics.
  const std::string error =
      "e08_unknown_record_byte.trace:293: unknown record type 0x5a 'Z' (not A, R, F, H, I or "
      "the end marker MTRC)";
  const auto path = fixture("mpatrol/edge/e08_unknown_record_byte.trace");
  for (const Mode mode : {Mode::Plain, Mode::VerboseSource}) {
    const std::string expected_out =
        mode == Mode::Plain
            ? read_file(fixture("mpatrol/edge/e08_unknown_record_byte.mptrace-fixed.txt"))
            : read_file(
                  fixture("mpatrol/edge/e08_unknown_record_byte.mptrace-fixed-verbose-source.txt"));
    const ToolRun lib = run_library(path, mode);
    EXPECT_EQ(lib.status, 1);
    EXPECT_EQ(lib.out, expected_out);
    EXPECT_EQ(lib.err, error);
    const ToolRun cli = run_cli(path, mode);
    EXPECT_EQ(cli.status, 1);
    EXPECT_EQ(cli.out, expected_out);
    EXPECT_EQ(cli.err, "rtrace: " + error + "\n");
  }
}

// Documented better behaviour: mptrace fails on its last record ("Error reading file") and prints
// no statistics; rtrace keeps that record and prints everything, with a warning.
TEST(EdgeTraces, MissingEndMarkerKeepsTheLastRecordAndWarns) {
  const std::string warning =
      "e01_no_end_marker.trace:476: warning: no end marker: the trace stops here (the traced "
      "program did not end normally); everything before was read\n";
  Expected plain = fixed_output("basic/mptrace-fixed.txt");
  plain.err = warning;
  check_both("edge/e01_no_end_marker.trace", Mode::Plain, plain);
  Expected verbose = fixed_output("basic/mptrace-fixed-verbose-source.txt");
  verbose.err = warning;
  check_both("edge/e01_no_end_marker.trace", Mode::VerboseSource, verbose);
  // What mptrace-fixed printed is a prefix of that: events 1 to 10, not 11.
  const std::string theirs =
      read_file(fixture("mpatrol/edge/e01_no_end_marker.mptrace-fixed-verbose-source.txt"));
  EXPECT_EQ(verbose.out.substr(0, theirs.size()), theirs);
  EXPECT_EQ(theirs.find("    11  alloc"), std::string::npos);
}

TEST(EdgeTraces, MissingEndMarkerIsAnErrorWithStrict) {
  const ScratchDir dir;
  const auto r = run_command(rtrace_bin() + " mptrace --strict " +
                             quote(fixture("mpatrol/edge/e01_no_end_marker.trace")));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, read_file(fixture("mpatrol/basic/mptrace-fixed.txt")));
  EXPECT_NE(r.err.find(":476: warning: no end marker"), std::string::npos) << r.err;
  const auto quiet = run_command(rtrace_bin() + " mptrace -q " +
                                 quote(fixture("mpatrol/edge/e01_no_end_marker.trace")));
  EXPECT_EQ(quiet.status, 0);
  EXPECT_EQ(quiet.err, "");
}

// Documented better behaviour: the rows and statistics of the records before the cut record.
TEST(EdgeTraces, TruncatedRecordKeepsEverythingBeforeIt) {
  const std::string warning =
      "e02_truncated_mid_record.trace:293: warning: the file ends inside this A record (no end "
      "marker); it is ignored, everything before it was read\n";
  const std::string statistics =
      "memory allocation tracing statistics\n"
      "------------------------------------\n"
      "allocated: 0 (0 bytes)\n"
      "freed:     0 (0 bytes)\n"
      "unfreed:   0 (0 bytes)\n"
      "peak:      0 (0 bytes)\n"
      "reserved:  16 (159744 bytes)\n"
      "internal:  10 (163840 bytes)\n"
      "total:     26 (323584 bytes)\n"
      "\n"
      "smallest size: 0 bytes\n"
      "largest size:  0 bytes\n"
      "average size:  0 bytes\n";
  check_both("edge/e02_truncated_mid_record.trace", Mode::Plain,
             {.out = statistics, .err = warning});
  const std::string rows =
      read_file(fixture("mpatrol/edge/e02_truncated_mid_record.mptrace-fixed-verbose-source.txt"));
  check_both("edge/e02_truncated_mid_record.trace", Mode::VerboseSource,
             {.out = rows + "\n" + statistics, .err = warning});
}

// Documented better behaviour: mptrace misreads 4-byte header words ("Tracing file version too
// new"); rtrace reads the file, which holds basic's records.
TEST(EdgeTraces, ThirtyTwoBitHeaderReadsLikeBasic) {
  ASSERT_EQ(read_file(fixture("mpatrol/edge/e11_32bit_word_header.mptrace-fixed.txt")), "");
  check_both("edge/e11_32bit_word_header.trace", Mode::Plain,
             fixed_output("basic/mptrace-fixed.txt"));
  check_both("edge/e11_32bit_word_header.trace", Mode::VerboseSource,
             fixed_output("basic/mptrace-fixed-verbose-source.txt"));
}

// ---- the command line itself ----

TEST(MptraceCli, ReadsCompressedInputAndStandardInput) {
  const ScratchDir dir;
  const auto trace = quote(fixture("mpatrol/threads/threads.trace"));
  ASSERT_EQ(run_command("gzip -c " + trace + " > " + quote(dir / "t.gz")).status, 0);
  ASSERT_EQ(run_command("zstd -q -c " + trace + " > " + quote(dir / "t.zst")).status, 0);
  const std::string expected = read_file(fixture("mpatrol/threads/mptrace-fixed-verbose.txt"));
  for (const std::string& input : {quote(dir / "t.gz"), quote(dir / "t.zst"), "- < " + trace}) {
    const auto r = run_command(rtrace_bin() + " mptrace --verbose " + input);
    EXPECT_EQ(r.status, 0) << input << ": " << r.err;
    EXPECT_EQ(r.out, expected) << input;
  }
}

TEST(MptraceCli, SideFileNamedStdoutGoesToStandardOutput) {
  const auto r = run_command(rtrace_bin() + " mptrace --hatf-file stdout " +
                             quote(fixture("mpatrol/basic/basic.trace")));
  ASSERT_EQ(r.status, 0) << r.err;
  std::string hatf = with_our_name(read_file(fixture("mpatrol/basic/mptrace-fixed.hatf")));
  hatf.replace(hatf.find("mptrace-fixed.hatf"), 18, "stdout");
  EXPECT_EQ(r.out, hatf + read_file(fixture("mpatrol/basic/mptrace-fixed.txt")));
}

TEST(MptraceCli, MissingFileAndBadOptions) {
  const ScratchDir dir;
  const auto missing = run_command("cd " + quote(dir.path()) + " && " + rtrace_bin() + " mptrace");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("mpatrol.trace"), std::string::npos) << missing.err;
  const auto bad = run_command(rtrace_bin() + " mptrace --no-such-option x");
  EXPECT_EQ(bad.status, 2);
  const auto help = run_command(rtrace_bin() + " mptrace --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--hatf-file"), std::string::npos);
  EXPECT_NE(help.out.find("--sim-file"), std::string::npos);
}

TEST(MptraceCli, SideFilesNeverReplaceTheTrace) {
  const ScratchDir dir;
  std::filesystem::copy_file(fixture("mpatrol/basic/basic.trace"), dir / "basic.trace");
  const auto r = run_command("cd " + quote(dir.path()) + " && " + rtrace_bin() +
                             " mptrace --sim-file basic.trace basic.trace");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(read_file(dir / "basic.trace"), read_file(fixture("mpatrol/basic/basic.trace")));
}

// The simulation program names the trace in a comment: a name holding `*/` must not end it and
// make the rest of the name code.
TEST(MptraceCli, TheTracesNameCannotEndTheSimulationsComment) {
  const ScratchDir dir;
  const std::string injected = "x*/ int injected = 1; /*";
  std::filesystem::create_directories(dir / injected);
  std::filesystem::copy_file(fixture("mpatrol/basic/basic.trace"), dir / "basic.trace");
  const auto r = run_command("cd " + quote(dir.path()) + " && " + rtrace_bin() +
                             " mptrace --sim-file=sim.c '" + injected + "/../../../basic.trace'");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string sim = read_file(dir / "sim.c");
  EXPECT_EQ(sim.substr(0, sim.find('\n')),
            "/* produced by rtrace mptrace 1.4 from x*\\/ int injected = 1; "
            "/*\\/../../../basic.trace */");
}

}  // namespace
}  // namespace rtrace
