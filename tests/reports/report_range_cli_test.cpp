// rtrace report --from/--to on a hand-made trace whose every block is known: the RANGE section
// gives the three figures of a range (allocated in it, alive at its end, allocated in it and alive
// at its end), the other sections count the calls inside it, and a range given in seconds is the
// same as the call indices it covers.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/test_paths.h"

namespace rtrace {
namespace {

// Calls one second apart (call N at N s): blocks of 100 (call 1, freed at 3), 200 (2, freed at 7),
// 300 (4, freed at 5: a temporary), 400 (6, never freed), 50 (8, never freed). Site A (0x10)
// allocates 100, 300 and 50; site B (0x11) 200 and 400.
constexpr std::string_view kTrace =
    "version=2.0, arch=x86_64, timestamp=2026.11.21 11:09:09, process=./ranged, pid=7, "
    "backtrace depth=10, origin=sp-rtrace 1.8, \n"
    "<1> : memory (memory allocation in bytes)\n"
    "1. [00:00:01.000] malloc(100) = 0x1000\n\t0x10\n\t0x20\n\n"
    "2. [00:00:02.000] malloc(200) = 0x2000\n\t0x11\n\t0x20\n\n"
    "3. [00:00:03.000] free(0x1000)\n"
    "4. [00:00:04.000] malloc(300) = 0x3000\n\t0x10\n\t0x20\n\n"
    "5. [00:00:05.000] free(0x3000)\n"
    "6. [00:00:06.000] malloc(400) = 0x4000\n\t0x11\n\t0x20\n\n"
    "7. [00:00:07.000] free(0x2000)\n"
    "8. [00:00:08.000] malloc(50) = 0x5000\n\t0x10\n\t0x20\n\n";

class ReportRange : public ::testing::Test {
 protected:
  void SetUp() override { test::write_file(trace(), std::string(kTrace)); }
  std::filesystem::path trace() const { return dir_.path() / "ranged.txt"; }
  test::CommandResult report(const std::string& options) const {
    return test::run_command((test::build_dir() / "bin" / "rtrace").string() + " report -q " +
                             options + " --no-resolve '" + trace().string() + "'");
  }

  test::ScratchDir dir_;
};

TEST_F(ReportRange, TextGivesTheThreeFiguresOfTheRange) {
  const test::CommandResult r = report("--from @3 --to @6");
  ASSERT_EQ(r.status, 0) << r.err;
  // Calls 3 to 6: allocated 300 (temporary) and 400; alive at call 6's end: 200 (allocated
  // before the range) and 400; of those allocated in the range only 400.
  EXPECT_NE(r.out.find("rtrace report: ./ranged (pid 7), 4 calls\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("RANGE from call 3 to call 6 (calls 3 to 6): counts are of the calls in "
                       "the range; \"alive at the range's end\" includes what was allocated "
                       "before it\n"
                       "  memory: allocated in the range: 2 allocations of 700 bytes; alive at "
                       "its end: 2 blocks of 600 bytes; allocated in it and alive at its end: 1 "
                       "blocks of 400 bytes\n"
                       "  grew most (allocated in the range, alive at its end):\n"
                       "    400 bytes in 1 blocks (memory) from:\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("memory (memory allocation in bytes): 4 calls, 2 allocations of 700 "
                       "bytes, 2 releases, 1 temporary\n"),
            std::string::npos)
      << r.out;
}

TEST_F(ReportRange, JsonGivesTheSameFiguresAndSecondsSelectTheSameCalls) {
  const test::CommandResult calls = report("--from @3 --to @6 --json");
  ASSERT_EQ(calls.status, 0) << calls.err;
  EXPECT_NE(calls.out.find("\"range\": {\"description\": \"from call 3 to call 6\", "
                           "\"first_call\": 3, \"last_call\": 6, \"types\": [{\"type\": "
                           "\"memory\", \"allocations\": 2, \"bytes_allocated\": 700, "
                           "\"alive_blocks\": 2, \"alive_bytes\": 600, \"grown_blocks\": 1, "
                           "\"grown_bytes\": 400}]"),
            std::string::npos)
      << calls.out;
  EXPECT_NE(calls.out.find("\"leaks_are\": \"alive at the range's end\""), std::string::npos);
  // Call 3 is 2 s after the first call, call 6 5 s after it.
  const test::CommandResult seconds = report("--from 2 --to 5s --json");
  ASSERT_EQ(seconds.status, 0) << seconds.err;
  const auto after_description = [](const std::string& json) {
    return json.substr(json.find("\"first_call\""));
  };
  EXPECT_EQ(after_description(seconds.out), after_description(calls.out));
}

TEST_F(ReportRange, NoRangeLeavesTheReportAsItWas) {
  const test::CommandResult whole = report("--json");
  ASSERT_EQ(whole.status, 0) << whole.err;
  EXPECT_EQ(whole.out.find("\"range\""), std::string::npos);
  EXPECT_NE(whole.out.find("\"leaks_are\": \"leaked\""), std::string::npos);
  const test::CommandResult text = report("");
  EXPECT_EQ(text.out.find("RANGE"), std::string::npos) << text.out;
}

TEST_F(ReportRange, AnEndBeforeTheStartIsAUsageError) {
  const test::CommandResult r = report("--from @6 --to @3");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("the range ends (call 3) before it starts (call 6)"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace rtrace
