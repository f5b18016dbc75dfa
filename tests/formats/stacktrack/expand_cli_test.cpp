// `rtrace stacktrack expand` as a user runs it: the fixture byte for byte, --show_format read back
// with --format, a file of another platform's layout, damaged files and usage errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "formats/stacktrack/layout_xml.h"
#include "stacktrack_test_support.h"

namespace rtrace::stacktrack::test {
namespace {

using rtrace::test::fixture;
using rtrace::test::read_file;
using rtrace::test::run_command;
using rtrace::test::ScratchDir;
using rtrace::test::write_file;

std::string expand_command(const std::string& args) {
  return rtrace_bin() + " stacktrack expand " + args;
}

TEST(StackTrackCli, FixtureExpandsByteForByte) {
  const auto r = run_command(expand_command(quote(fixture("stacktrack/sample.raw"))));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, read_file(fixture("stacktrack/sample.expand.txt")));
  EXPECT_EQ(r.err, "");
}

TEST(StackTrackCli, ReadsStandardInputAndCompressedFiles) {
  const ScratchDir dir;
  const std::string raw = quote(fixture("stacktrack/sample.raw"));
  ASSERT_EQ(run_command("gzip -c " + raw + " > " + quote(dir / "s.gz")).status, 0);
  const auto r = run_command(expand_command("- < " + quote(dir / "s.gz")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, read_file(fixture("stacktrack/sample.expand.txt")));
}

// --show_format prints the layout in use; read back with --format it gives the same layout and
// the same expansion.
TEST(StackTrackCli, ShowFormatReadBackGivesTheSameResults) {
  const ScratchDir dir;
  const auto shown = run_command(expand_command("--show_format"));
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_EQ(shown.out, layout_to_xml(default_layout()));
  write_file(dir / "format.xml", shown.out);
  const auto again =
      run_command(expand_command("--show_format --format " + quote(dir / "format.xml")));
  EXPECT_EQ(again.out, shown.out);
  const auto r = run_command(expand_command("--format " + quote(dir / "format.xml") + " " +
                                            quote(fixture("stacktrack/sample.raw"))));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, read_file(fixture("stacktrack/sample.expand.txt")));
}

// A file written on another platform (32-byte entries, wider fields, other flag bits, members in
// another order, big-endian) reads through its description.
TEST(StackTrackCli, AnotherPlatformsFileReadsThroughItsDescription) {
  const ScratchDir dir;
  const std::string layout_file = STACKTRACK_TEST_DIR "/wide_layout.xml";
  const RawLayout wide = load_layout_file(layout_file);
  constexpr std::uint64_t pid = 0x12345;
  for (const Order order : {Order::Big, Order::Little}) {
    RawEncoder e(wide, order);
    e.process_start(pid, 1000, 100);
    e.entry("FLOC", pid, 1, {{"filenum", 7}}, true).info(pid, 1, "a_rather_long_file_name.cpp");
    e.entry("SLOC", pid, 1,
            {{"filenum", 7}, {"scopeIndex", 70000}, {"linenum", 123456}, {"style", 3}}, true);
    e.info(pid, 1, "scope<1>");
    e.entry("HIT", pid, 1, {{"tid", 0x10001}, {"scopeIndex", 70000}, {"when", 2100}});
    write_file(dir / "wide.raw", e.bytes());

    const auto r = run_command(
        expand_command("--format " + quote(layout_file) + " " + quote(dir / "wide.raw")));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(
        r.out,
        R"(<PROLOGUE flags="0x8000" pid="0x12345" seq="0" _12345678="305419896" version="256" info_len="20" entry_size="32" payload_offset="12"/>
<PROCINFO flags="0x9000" pid="0x12345" seq="0" writeCount="1" pid="0x12345"/>
<TIMETYPE flags="0xb000" pid="0x12345" seq="0" timetype="0x0020" tdiv="1.000000"/>
<TIMEINFO flags="0xa000" pid="0x12345" seq="0" start="1111756865" start_hires="0.000000"/>
<FLOC flags="0x0110" pid="0x12345" seq="1" filenum="7" writeCount="0" properties="0"/>
<INFO flags="0x000f" pid="0x12345" seq="1" text="a_rather_long_file_n"/>
<INFO flags="0x002f" pid="0x12345" seq="1" text="ame.cpp"/>
<SLOC flags="0x0310" pid="0x12345" seq="1" filenum="7" scopeIndex="70000" linenum="123456" style="3" writeCount="0"/>
<INFO flags="0x002f" pid="0x12345" seq="1" text="scope&lt;1&gt;"/>
<HIT flags="0x0000" pid="0x12345" seq="1" tid="0x10001" scopeIndex="70000" when="2.000000"/>
)");
    EXPECT_EQ(r.err, "");

    // Its --show_format output, read back, gives the same lines.
    const auto shown = run_command(expand_command("--show_format --format " + quote(layout_file)));
    ASSERT_EQ(shown.status, 0) << shown.err;
    write_file(dir / "shown.xml", shown.out);
    const auto again = run_command(
        expand_command("--format " + quote(dir / "shown.xml") + " " + quote(dir / "wide.raw")));
    EXPECT_EQ(again.out, r.out);

    // Without its description the file is refused, not misread.
    const auto plain = run_command(expand_command(quote(dir / "wide.raw")));
    EXPECT_EQ(plain.status, 1);
    EXPECT_EQ(plain.out, "");
    EXPECT_NE(plain.err.find("wide.raw:0: not a StackTrack raw event file in this layout"),
              std::string::npos)
        << plain.err;
  }
}

TEST(StackTrackCli, TruncatedFileKeepsItsEntriesAndWarns) {
  const ScratchDir dir;
  const std::string bytes = read_file(fixture("stacktrack/sample.raw"));
  write_file(dir / "cut.raw", bytes.substr(0, 24 * 5 + 10));
  const auto r = run_command(expand_command(quote(dir / "cut.raw")));
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string expected = read_file(fixture("stacktrack/sample.expand.txt"));
  std::size_t end = 0;
  for (int i = 0; i < 5; ++i) {
    end = expected.find('\n', end) + 1;
  }
  EXPECT_EQ(r.out, expected.substr(0, end));
  EXPECT_EQ(r.err, "rtrace: " + (dir / "cut.raw").string() +
                       ":120: warning: truncated entry (10 of 24 bytes); ignored\n"
                       "rtrace: " +
                       (dir / "cut.raw").string() +
                       ":120: warning: 1 INFO series never ended (the first announced by the "
                       "FLOC at offset 96)\n");
  const auto strict = run_command(expand_command("--strict -q " + quote(dir / "cut.raw")));
  EXPECT_EQ(strict.status, 1);
  EXPECT_EQ(strict.out, r.out);
  EXPECT_EQ(strict.err, "");
}

TEST(StackTrackCli, CorruptFileReportsTheOffsetAfterTheEntriesBefore) {
  const ScratchDir dir;
  std::string bytes = read_file(fixture("stacktrack/sample.raw"));
  constexpr std::size_t kEntry = 24;
  bytes[kEntry * 3] = 0x50;  // TIMEINFO's flags 0x6000 -> 0x6050: still TIMEINFO (global)
  bytes[kEntry * 4] = 0x50;  // FLOC's flags 0x1010 -> 0x1050: checkpoint type 5 does not exist
  bytes[kEntry * 4 + 1] = 0x00;
  write_file(dir / "bad.raw", bytes);
  const auto r = run_command(expand_command(quote(dir / "bad.raw")));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "rtrace: " + (dir / "bad.raw").string() + ":96: unknown entry type (flags 0x0050)\n");
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 4);
}

TEST(StackTrackCli, UsageErrors) {
  EXPECT_EQ(run_command(expand_command("")).status, 2);
  const auto both = run_command(expand_command("--show_format x.raw"));
  EXPECT_EQ(both.status, 2);
  EXPECT_EQ(both.err, "rtrace: stacktrack expand: --show_format takes no TRACE\n");
  EXPECT_EQ(run_command(rtrace_bin() + " stacktrack").status, 2);
  const auto missing = run_command(expand_command("/nonexistent/x.raw"));
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("/nonexistent/x.raw"), std::string::npos);
  const ScratchDir dir;
  write_file(dir / "bad.xml", "<RAW_FORMAT version=\"1\"/>\n");
  const auto bad_format =
      run_command(expand_command("--show_format --format " + quote(dir / "bad.xml")));
  EXPECT_EQ(bad_format.status, 1);
  EXPECT_EQ(bad_format.err,
            "rtrace: " + (dir / "bad.xml").string() + ":1: <RAW_FORMAT> has no size attribute\n");
}

TEST(StackTrackCli, HelpNamesTheOptions) {
  const auto r = run_command(expand_command("--help"));
  EXPECT_EQ(r.status, 0);
  for (const char* option : {"--show_format", "--format", "--raw-times", "--strict", "TRACE"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  }
}

}  // namespace
}  // namespace rtrace::stacktrack::test
