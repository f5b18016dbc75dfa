// Every output of the original post-processor in the fixtures that was made with filter
// options, reproduced byte for byte by `sp-rtrace-postproc` and `rtrace process`, with the
// deviations NOTES.md documents applied to the expected text (see expected_output.h).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "filters/expected_output.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::fixture;
using test::read_file;
using test::TieOrder;

struct FixtureCase {
  std::string name;
  std::string input;     // under sp-rtrace/
  std::string options;   // the original's command line, minus -i
  std::string expected;  // under sp-rtrace/
  // Turns the original's output into ours; the name of each function says which deviation.
  std::function<std::string(std::string)> adjust{};
};

// Names the case in failure messages instead of dumping its bytes.
void PrintTo(const FixtureCase& c, std::ostream* out) {
  *out << c.options << " -i " << c.input << " (expected " << c.expected << ")";
}

std::string read_fixture(const std::string& relative) {
  return read_file(fixture("sp-rtrace/" + relative));
}

// The deviations (NOTES.md): `origin` - binary input names no origin, ours writes rtrace's;
// `ties` - compress groups with equal keys come in first-index order, the original's in
// hash-table order. Text input keeps its origin.
std::string unchanged(const std::string& text) {
  return text;
}
std::string origin(std::string text) {
  return test::with_our_origin(std::move(text));
}
std::string origin_ties(std::string text) {
  return test::with_ties_by_first_index(origin(std::move(text)), TieOrder::SizeAscending);
}
std::string ties(const std::string& text) {
  return test::with_ties_by_first_index(text, TieOrder::SizeAscending);
}

// shmsysv has three resource types; the original prints the first type's numbers for the
// third ("control"), which in truth never leaks: every shmctl<control> call is a release.
std::string true_control_numbers(std::string text) {
  return test::with_leak_summary(std::move(text),
                                 "control (shared memory segment control operation)",
                                 "# 0 block(s) leaked with total size of 0 bytes");
}

// context.raw's registry, which the original drops when it reads text (`@ 0 : (null)`).
const char* const kContextRegistry = "@ 1 : alpha\n@ 2 : beta\n@ 4 : gamma\n";

std::vector<FixtureCase> cases() {
  std::vector<FixtureCase> all = {
      // memory: one resource type.
      {"memory_l", "memory/memory.raw", "-l", "memory/memory.l.txt", origin},
      {"memory_c", "memory/memory.raw", "-c", "memory/memory.c.txt", origin_ties},
      {"memory_lc", "memory/memory.raw", "-lc", "memory/memory.lc.txt", origin_ties},
      {"memory_lc_s_size", "memory/memory.raw", "-lc -s size", "memory/memory.lc.s-size.txt",
       [](std::string t) {
         return test::with_ties_by_first_index(origin(std::move(t)), TieOrder::SizeDescending);
       }},
      {"memory_lc_s_size_asc", "memory/memory.raw", "-lc -s size-asc",
       "memory/memory.lc.s-size-asc.txt", origin_ties},
      {"memory_lc_s_count", "memory/memory.raw", "-lc -s count", "memory/memory.lc.s-count.txt",
       [](std::string t) {
         return test::with_ties_by_first_index(origin(std::move(t)), TieOrder::CountDescending);
       }},
      {"memory_lc_s_count_asc", "memory/memory.raw", "-lc -s count-asc",
       "memory/memory.lc.s-count-asc.txt",
       [](std::string t) {
         return test::with_ties_by_first_index(origin(std::move(t)), TieOrder::CountAscending);
       }},
      {"memory_l_b3", "memory/memory.raw", "-l -b 3", "memory/memory.l.b3.txt", origin},
      {"memory_lc_b2", "memory/memory.raw", "-lc -b 2", "memory/memory.lc.b2.txt", origin_ties},
      // The original keeps groups apart whose trimmed backtraces are equal; re-compressing its
      // output (memory.c.b4.txt.c.txt) shows the merged groups we print.
      {"memory_c_b4", "memory/memory.raw", "-c -b 4", "memory/memory.c.b4.txt",
       [](std::string t) {
         return ties(test::with_body_of(origin(std::move(t)),
                                        read_fixture("memory/memory.c.b4.txt.c.txt")));
       }},
      {"memory_R1", "memory/memory.raw", "-R 1", "memory/memory.R1.txt", origin},
      {"memory_stdin_lc", "memory/memory.raw", "-lc <", "memory/memory.stdin.lc.txt", origin_ties},
      {"memory_txt_l", "memory/memory.txt", "-l", "memory/memory.txt.l.txt"},
      {"memory_txt_lc", "memory/memory.txt", "-lc", "memory/memory.txt.lc.txt", ties},
      {"memory_l_txt_c", "memory/memory.l.txt", "-c", "memory/memory.l.txt.c.txt", ties},
      {"memory_c_b4_txt_c", "memory/memory.c.b4.txt", "-c", "memory/memory.c.b4.txt.c.txt", ties},
      // fd: two resource types.
      {"fd_l", "fd/fd.raw", "-l", "fd/fd.l.txt", origin},
      {"fd_c", "fd/fd.raw", "-c", "fd/fd.c.txt", origin_ties},
      {"fd_lc", "fd/fd.raw", "-lc", "fd/fd.lc.txt", origin_ties},
      {"fd_R1", "fd/fd.raw", "-R 1", "fd/fd.R1.txt", origin},
      {"fd_R2", "fd/fd.raw", "-R 2", "fd/fd.R2.txt", origin},
      {"fd_R3", "fd/fd.raw", "-R 3", "fd/fd.R3.txt", origin},
      {"fd_l_R1", "fd/fd.raw", "-l -R 1", "fd/fd.l.R1.txt", origin},
      {"fd_lc_R2", "fd/fd.raw", "-lc -R 2", "fd/fd.lc.R2.txt", origin_ties},
      {"fd_txt_lc", "fd/fd.txt", "-lc", "fd/fd.txt.lc.txt", ties},
      {"fd_txt_R2", "fd/fd.txt", "-R 2", "fd/fd.txt.R2.txt"},
      // shmsysv: three resource types, one refcounted.
      {"shmsysv_l", "shmsysv/shmsysv.raw", "-l", "shmsysv/shmsysv.l.txt",
       [](std::string t) { return true_control_numbers(origin(std::move(t))); }},
      {"shmsysv_c", "shmsysv/shmsysv.raw", "-c", "shmsysv/shmsysv.c.txt", origin_ties},
      {"shmsysv_lc", "shmsysv/shmsysv.raw", "-lc", "shmsysv/shmsysv.lc.txt",
       [](std::string t) { return true_control_numbers(origin_ties(std::move(t))); }},
      {"shmsysv_R1", "shmsysv/shmsysv.raw", "-R 1", "shmsysv/shmsysv.R1.txt", origin},
      {"shmsysv_R2", "shmsysv/shmsysv.raw", "-R 2", "shmsysv/shmsysv.R2.txt", origin},
      {"shmsysv_R3", "shmsysv/shmsysv.raw", "-R 3", "shmsysv/shmsysv.R3.txt", origin},
      {"shmsysv_R4", "shmsysv/shmsysv.raw", "-R 4", "shmsysv/shmsysv.R4.txt", origin},
      {"shmsysv_l_R1", "shmsysv/shmsysv.raw", "-l -R 1", "shmsysv/shmsysv.l.R1.txt", origin},
      {"shmsysv_l_R2", "shmsysv/shmsysv.raw", "-l -R 2", "shmsysv/shmsysv.l.R2.txt", origin},
      {"shmsysv_lc_R3", "shmsysv/shmsysv.raw", "-lc -R 3", "shmsysv/shmsysv.lc.R3.txt",
       origin_ties},
      {"shmsysv_txt_l", "shmsysv/shmsysv.txt", "-l", "shmsysv/shmsysv.txt.l.txt",
       true_control_numbers},
      // context: calls in contexts @1, @2, @4 and @3.
      {"context_l", "context/context.raw", "-l", "context/context.l.txt", origin},
      {"context_c", "context/context.raw", "-c", "context/context.c.txt", origin_ties},
      {"context_lc", "context/context.raw", "-lc", "context/context.lc.txt", origin_ties},
      {"context_C0", "context/context.raw", "-C 0", "context/context.C0.txt", origin},
      {"context_C1", "context/context.raw", "-C 1", "context/context.C1.txt", origin},
      {"context_C2", "context/context.raw", "-C 2", "context/context.C2.txt", origin},
      {"context_C3", "context/context.raw", "-C 3", "context/context.C3.txt", origin},
      {"context_C4", "context/context.raw", "-C 4", "context/context.C4.txt", origin},
      {"context_l_C0", "context/context.raw", "-l -C 0", "context/context.l.C0.txt", origin},
      {"context_l_C1", "context/context.raw", "-l -C 1", "context/context.l.C1.txt", origin},
      {"context_l_C2", "context/context.raw", "-l -C 2", "context/context.l.C2.txt", origin},
      {"context_lc_C1", "context/context.raw", "-lc -C 1", "context/context.lc.C1.txt",
       origin_ties},
      {"context_lc_C6", "context/context.raw", "-lc -C 6", "context/context.lc.C6.txt",
       origin_ties},
      {"context_txt_l_C2", "context/context.txt", "-l -C 2", "context/context.txt.l.C2.txt",
       [](const std::string& t) { return test::with_context_registry(t, "@ 2 : beta\n"); }},
      {"context_txt_lc", "context/context.txt", "-lc", "context/context.txt.lc.txt",
       [](const std::string& t) { return ties(test::with_context_registry(t, kContextRegistry)); }},
  };
  // The original's own test suite (sp-rtrace 1.6): text in, text out; `X.A.B` is `-B` applied
  // to `X.A`, and `context.txt.C.B` is `-C -B` applied to context.txt.
  for (const char* in : {"", "r", "lc", "lcr"}) {
    for (const char* out : {"", "lc"}) {
      const std::string input = std::string("upstream-tests/sample.txt") + (*in ? "." : "") + in;
      const std::string options = *out ? std::string("-") + out : "";
      all.push_back({std::string("upstream_sample_") + in + "_" + out, input, options,
                     std::string("upstream-tests/sample.txt.") + in + "." + out,
                     *out ? std::function(ties) : std::function(unchanged)});
    }
  }
  // context.txt names two contexts; the original drops their names (see kContextRegistry).
  const std::vector<std::pair<std::string, std::string>> masks = {
      {"", "@ 1 : first context\n@ 2 : second context\n"},
      {"C0", ""},
      {"C1", "@ 1 : first context\n"},
      {"C2", "@ 2 : second context\n"},
      {"C3", "@ 1 : first context\n@ 2 : second context\n"},
      {"C4", ""}};
  for (const auto& mask_and_registry : masks) {
    const std::string& mask = mask_and_registry.first;
    const std::string& registry = mask_and_registry.second;
    for (const char* out : {"", "lc"}) {
      std::string options = mask.empty() ? "" : "-" + mask;
      if (*out) {
        options += std::string(" -") + out;
      }
      all.push_back({"upstream_context_" + mask + "_" + out, "upstream-tests/context.txt", options,
                     "upstream-tests/context.txt." + mask + "." + out,
                     [registry, compressed = *out != 0](const std::string& t) {
                       const std::string named = test::with_context_registry(t, registry);
                       return compressed ? ties(named) : named;
                     }});
    }
  }
  return all;
}

class FilterFixture : public testing::TestWithParam<FixtureCase> {};

std::string run_tool(const std::string& command_line) {
  const test::CommandResult result = test::run_command(command_line);
  EXPECT_EQ(result.status, 0) << command_line << "\n" << result.err;
  return result.out;
}

std::string command(const std::string& tool, const FixtureCase& c) {
  const std::string input = "'" + fixture("sp-rtrace/" + c.input).string() + "'";
  const std::string options =
      c.options.ends_with("<") ? c.options + " " + input : c.options + " -i " + input;
  return tool + " " + options;
}

TEST_P(FilterFixture, OutputMatchesTheOriginal) {
  RTRACE_NEEDS_FIXTURES();
  const FixtureCase& c = GetParam();
  const std::string original = read_fixture(c.expected);
  const std::string expected = c.adjust ? c.adjust(original) : original;
  const std::string bin = (test::build_dir() / "bin").string();
  EXPECT_EQ(run_tool(command(bin + "/sp-rtrace-postproc", c)), expected);
  EXPECT_EQ(run_tool(command(bin + "/rtrace process", c)), expected);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FilterFixture, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<FixtureCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace rtrace
