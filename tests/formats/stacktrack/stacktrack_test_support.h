// Shared by the StackTrack tests: expanding bytes in memory through the library, and running the
// real rtrace binary.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "formats/stacktrack/default_layout.h"
#include "formats/stacktrack/event_decoder.h"
#include "formats/stacktrack/expand_writer.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/memory_source.h"
#include "raw_encoder.h"
#include "support/test_paths.h"

namespace rtrace::stacktrack::test {

struct Expanded {
  std::string text;      // the expand lines of every entry decoded
  std::string warnings;  // "trace:OFFSET: warning: ...\n" each
  bool failed = false;
  std::uint64_t error_position = 0;
  std::string error;
};

inline Expanded expand_bytes(std::string bytes, const RawLayout& layout = default_layout(),
                             ExpandOptions options = {}, DecoderLimits limits = {},
                             std::size_t piece = 1 << 20) {
  Expanded result;
  InputStream input(std::make_unique<MemorySource>(std::move(bytes), piece), "trace");
  CollectingDiagnostics diagnostics;
  const EntrySchema schema(layout);
  const ExpandWriter writer(schema, options);
  try {
    EventDecoder decoder(input, schema, diagnostics, limits);
    while (const Entry* entry = decoder.next()) {
      writer.write(*entry, result.text);
    }
  } catch (const InputError& e) {
    result.failed = true;
    result.error_position = e.position();
    result.error = e.what();
  }
  result.warnings = diagnostics.text();
  return result;
}

inline std::string rtrace_bin() {
  return (rtrace::test::build_dir() / "bin" / "rtrace").string();
}

inline std::string quote(const std::filesystem::path& p) {
  return "'" + p.string() + "'";
}

}  // namespace rtrace::stacktrack::test
