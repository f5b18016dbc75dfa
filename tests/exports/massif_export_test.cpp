// rtrace export massif opened by its consumers: ms_print prints the detailed snapshots of a
// program whose allocations are known, and of the benchmarks' churn; massif-visualizer draws the
// known program's sites as a stacked chart.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

std::string rtrace() {
  return test::quoted(test::build_dir() / "bin" / "rtrace");
}

// Records `program` into `dir` and returns the trace's path.
std::filesystem::path record(const test::ScratchDir& dir, const std::string& program) {
  const test::CommandResult recorded = test::run_command(
      rtrace() + " record -q -s -e memory -o " + test::quoted(dir.path()) + " -x " + program);
  EXPECT_EQ(recorded.status, 0) << recorded.err;
  return std::filesystem::directory_iterator(dir.path())->path();
}

std::string ms_print(const std::filesystem::path& massif) {
  const test::CommandResult printed = test::run_command("ms_print " + test::quoted(massif));
  EXPECT_EQ(printed.status, 0) << printed.err;
  return printed.out;
}

// The addresses of a program's frames change with its build: "0x..." in the lines.
std::string without_addresses(const std::string& text) {
  return std::regex_replace(text, std::regex("0x[0-9A-F]+: "), "0x: ");
}

std::filesystem::path export_massif(const test::ScratchDir& dir, const std::filesystem::path& trace,
                                    const std::string& options = "") {
  const std::filesystem::path massif = dir / "massif.out";
  const test::CommandResult r =
      test::run_command(rtrace() + " export massif " + options + " -i " + test::quoted(trace) +
                        " -o " + test::quoted(massif));
  EXPECT_EQ(r.status, 0) << r.err;
  return massif;
}

// The tree ms_print prints for snapshot `number`: the lines after its table row, to the next
// table or the end, with the addresses out.
std::string tree_of(const std::string& printed, int number) {
  const std::regex row("\n +" + std::to_string(number) + " +[\\d,]+ +[\\d,]+ +[\\d,]+ +0 +0\n");
  std::smatch match;
  if (!std::regex_search(printed, match, row)) {
    return "(no snapshot " + std::to_string(number) + ")";
  }
  const std::size_t start = match.position(0) + match.length(0);
  const std::size_t end = printed.find("\n-----", start);
  return without_addresses(printed.substr(start, end == std::string::npos ? end : end + 1 - start));
}

// The callers of main in massif_steps, from libc's debug information (libc6-dbg).
std::string outer_frames(const std::string& prefix, const std::string& percent,
                         const std::string& bytes) {
  return fmt::format(
      "{0}  ->{1}% ({2}B) 0x: __libc_start_call_main() (libc_start_call_main.h:58)\n"
      "{0}    ->{1}% ({2}B) 0x: __libc_start_main() (libc-start.c:360)\n"
      "{0}      ->{1}% ({2}B) 0x: _start() (in {3})\n"
      "{0}        \n",
      prefix, percent, bytes, RTRACE_MASSIF_STEPS);
}

// massif_steps.c's 402 changes with massif's defaults: the series keeps every 8th (the stride
// doubled three times to stay under 98 snapshots), so snapshot k is change 8k; every 10th is
// detailed, the peak (change 200, 400,008 bytes) takes the place of snapshot 25, and the end
// state follows as snapshot 51.
TEST(MassifExport, MsPrintShowsTheDetailedSnapshotsOfAKnownProgram) {
  const test::ScratchDir dir;
  const std::string printed = ms_print(export_massif(dir, record(dir, RTRACE_MASSIF_STEPS)));
  EXPECT_NE(printed.find("Number of snapshots: 52\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find(" Detailed snapshots: [0, 10, 20, 25 (peak), 30, 40, 50]\n"),
            std::string::npos)
      << printed;
  // Change 80: 41 big blocks and 40 small ones.
  EXPECT_EQ(tree_of(printed, 10),
            "100.00% (163,000B) (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n"
            "->75.46% (123,000B) 0x: big_buffer() (massif_steps.c:17)\n"
            "| ->75.46% (123,000B) 0x: main() (massif_steps.c:46)\n" +
                outer_frames("| ", "75.46", "123,000") +
                "->24.54% (40,000B) 0x: small_buffer() (massif_steps.c:23)\n"
                "  ->24.54% (40,000B) 0x: main() (massif_steps.c:47)\n" +
                outer_frames("  ", "24.54", "40,000"));
  // The peak: every block alive, the tiny one below the 1% threshold.
  const std::string peak = tree_of(printed, 25);
  EXPECT_TRUE(peak.starts_with(
      "100.00% (400,008B) (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n"
      "->75.00% (300,000B) 0x: big_buffer() (massif_steps.c:17)\n"))
      << peak;
  EXPECT_NE(peak.find("->25.00% (100,000B) 0x: small_buffer() (massif_steps.c:23)\n"),
            std::string::npos)
      << peak;
  EXPECT_NE(peak.find("\n->00.00% (8B) in 1+ places, all below ms_print's threshold (01.00%)\n"),
            std::string::npos)
      << peak;
  // Change 320: 120 blocks freed, 40 of each size alive, and the tiny one.
  const std::string late = tree_of(printed, 40);
  EXPECT_TRUE(late.starts_with(
      "100.00% (160,008B) (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n"
      "->75.00% (120,000B) 0x: big_buffer() (massif_steps.c:17)\n"))
      << late;
  // Change 400: the tiny block alone.
  EXPECT_TRUE(
      tree_of(printed, 50)
          .starts_with(
              "100.00% (8B) (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n"
              "->100.00% (8B) 0x: tiny_buffer() (massif_steps.c:29)\n"))
      << tree_of(printed, 50);
}

// The options: every snapshot detailed, at most 10 of them, a 30% threshold.
TEST(MassifExport, OptionsSetTheSnapshotsAndTheThreshold) {
  const test::ScratchDir dir;
  const std::string printed =
      ms_print(export_massif(dir, record(dir, RTRACE_MASSIF_STEPS),
                             "--max-snapshots 10 --detailed-freq 1 --threshold 30"));
  // Snapshots at changes 0, 64, 128, ... (the stride doubled until 8 fit), all detailed, the
  // peak in its place, the end state last; the small blocks now below the threshold.
  EXPECT_NE(printed.find("Number of snapshots: 9\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find(" Detailed snapshots: [0, 1, 2, 3, 4 (peak), 5, 6, 7]\n"),
            std::string::npos)
      << printed;
  EXPECT_TRUE(
      tree_of(printed, 4)
          .ends_with(
              "->25.00% (100,008B) in 2 places, all below massif's threshold (30.00%)\n  \n"))
      << tree_of(printed, 4);
}

// The benchmarks' churn (a few hundred stacks, a window of 64 live blocks): trees in at least
// five snapshots besides the peak.
TEST(MassifExport, MsPrintShowsTreesAcrossTheChurn) {
  const test::ScratchDir dir;
  const std::string printed =
      ms_print(export_massif(dir, record(dir, std::string(RTRACE_CHURN) + " 20000")));
  std::smatch match;
  ASSERT_TRUE(std::regex_search(printed, match, std::regex(R"(Detailed snapshots: \[([^\]]*)\])")))
      << printed;
  const std::string list = match[1].str();
  EXPECT_GE(std::count(list.begin(), list.end(), ',') + 1, 6) << list;
  EXPECT_NE(list.find("(peak)"), std::string::npos) << list;
}

// The hue of "RRGGBB", in degrees.
double hue(const std::string& hex) {
  const auto channel = [&](std::size_t at) {
    return std::stoi(hex.substr(at, 2), nullptr, 16) / 255.0;
  };
  const double r = channel(0);
  const double g = channel(2);
  const double b = channel(4);
  const double high = std::max({r, g, b});
  const double range = high - std::min({r, g, b});
  if (range == 0) {
    return 0;
  }
  double h = high == r   ? std::fmod((g - b) / range, 6.0)
             : high == g ? (b - r) / range + 2
                         : (r - g) / range + 4;
  h *= 60;
  return h < 0 ? h + 360 : h;
}

// massif-visualizer (Debian's) opens the export of massif_steps on a virtual display (xvfb-run):
// it reads every snapshot and the peak (what it prints on loading), and its stacked chart shows
// the two sites as two areas, big_buffer's and small_buffer's, in the colours of its palette
// (orange and green: the saturated colours of at least 1000 pixels on the screen, counted by
// xwd_to_png.py from an xwd dump). The screenshot stays in the test's output folder,
// build/tests/exports/massif_export_output/.
TEST(MassifExport, MassifVisualizerDrawsTheSitesStacked) {
  const test::ScratchDir dir;
  const std::filesystem::path massif = export_massif(dir, record(dir, RTRACE_MASSIF_STEPS));
  const std::filesystem::path out = RTRACE_TEST_OUTPUT_DIR;
  std::filesystem::remove_all(out);
  const std::string shot =
      "xvfb-run -a -s '-screen 0 1280x900x24' " +
      test::quoted(test::source_dir() / "tests" / "exports" / "massif_visualizer_shot.sh") + " " +
      test::quoted(massif) + " " + test::quoted(out);
  test::CommandResult r = test::run_command(shot);
  if (test::read_file(out / "massif-visualizer.log").find("could not connect to display") !=
      std::string::npos) {
    // Another program took the display number xvfb-run chose between its check and its start.
    r = test::run_command(shot);
  }
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string log = test::read_file(out / "massif-visualizer.log");
  // The time unit is the export's choice by the trace's clock (calls or milliseconds, by how
  // long the program ran): only the snapshots are the program's.
  EXPECT_NE(log.find("snapshots: 52\npeak: snapshot # 25 after "), std::string::npos) << log;
  const std::string png = test::read_file(out / "massif-visualizer.png");
  EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n");
  const std::string colours = test::read_file(out / "colours.txt");
  bool orange = false;
  bool green = false;
  std::istringstream lines(colours);
  for (std::string hex, count; lines >> hex >> count;) {
    const double h = hue(hex);
    orange = orange || (h >= 20 && h <= 50);
    green = green || (h >= 90 && h <= 150);
  }
  EXPECT_TRUE(orange && green) << colours << log;
}

}  // namespace
}  // namespace rtrace
