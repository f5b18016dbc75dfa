// The export table: a new export is one file (record_counter_export.cpp) and one registry line,
// and then `rtrace process --to NAME` (the same library path) writes with it.
#include "exports/export_registry.h"

#include <gtest/gtest.h>

#include "cli/process_command.h"
#include "support/test_paths.h"

namespace rtrace::test {

ExportInfo record_counter_export();

namespace {

TEST(ExportRegistry, WritableFormatsComeFirst) {
  const std::vector<ExportInfo> all = exports();
  ASSERT_GE(all.size(), 2U);
  EXPECT_EQ(all[0].name, "binary");
  EXPECT_EQ(all[1].name, "text");
  EXPECT_FALSE(find_export("no-such-export"));
}

TEST(ExportRegistry, ANewExportIsOneFileAndOneLine) {
  RTRACE_NEEDS_FIXTURES();
  register_export(record_counter_export());  // the registry line

  cli::ProcessOptions options;
  options.output_format = "record-count";
  const std::unique_ptr<InputStream> input = open_input(fixture("sp-rtrace/memory/memory.raw"));
  ScratchDir scratch;
  OutputStream out((scratch / "count.txt").string(), {});
  CollectingDiagnostics diagnostics;
  EXPECT_FALSE(cli::process_stream(options, *input, out, diagnostics));
  out.commit();
  // memory.raw: 2 modules, 8 maps, 44 calls (`rtrace process` of it shows them).
  EXPECT_EQ(read_file(scratch / "count.txt"), "modules 2\nmappings 8\ncalls 44\nframes 202\n");
}

}  // namespace
}  // namespace rtrace::test
