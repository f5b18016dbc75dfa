// What every fuzz target does with its input: reads it as a trace, the way rtrace's commands do,
// into a sink that exercises the code behind the reader. Only what rtrace promises for damaged
// input is allowed to escape: InputError (the file is bad) or nothing. Any other exception, a
// crash, a hang or a sanitizer report is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "pipeline/stage_registry.h"
#include "formats/format_registry.h"
#include "io/input_stream.h"
#include "io/output_stream.h"
#include "model/trace_sink.h"

namespace rtrace::fuzz {

// The fuzzer's bytes as an input stream named "fuzz", decompressed when they start like gzip or
// zstd (as every rtrace command opens its input). Small reads exercise the buffer refills.
std::unique_ptr<InputStream> open_fuzz_input(std::span<const std::uint8_t> bytes);

// A text-protocol writer into /dev/null: the records a reader delivers are formatted (hostile
// strings included) and thrown away.
class DiscardingTextWriter {
 public:
  DiscardingTextWriter();
  TraceSink& sink() { return *writer_; }

 private:
  OutputStream out_;
  std::unique_ptr<TraceSink> writer_;
};

// Reads `bytes` with the format called `format` (no detection) into a text writer.
void read_as_format(const char* format, std::span<const std::uint8_t> bytes);

// Reads `bytes` as `rtrace process` does: format detected by content, through `stages`, into a
// text writer.
void process(std::span<const std::uint8_t> bytes, const std::vector<StageSpec>& stages);

}  // namespace rtrace::fuzz
