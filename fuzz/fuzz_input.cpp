#include "fuzz/fuzz_input.h"

#include <stdexcept>

#include "io/diagnostics.h"
#include "io/memory_source.h"
#include "pipeline/pipeline.h"

namespace rtrace::fuzz {
namespace {

constexpr std::size_t kReadPiece = 4093;  // odd, so records straddle refills

// Warnings are what damaged input is expected to produce: collected and dropped.
class SilentDiagnostics final : public Diagnostics {
 protected:
  void report(std::string_view, std::uint64_t, std::string_view) override {}
};

const TraceFormatInfo& format_named(const char* name) {
  const TraceFormatInfo* format = find_format(name);
  if (format == nullptr || format->read == nullptr) {
    throw std::logic_error(std::string("no readable format ") + name);
  }
  return *format;
}

}  // namespace

std::unique_ptr<InputStream> open_fuzz_input(std::span<const std::uint8_t> bytes) {
  return open_input(std::make_unique<MemorySource>(bytes, kReadPiece), "fuzz");
}

DiscardingTextWriter::DiscardingTextWriter()
    : out_("/dev/null", {}), writer_(format_named("text").open_writer(out_, ExportOptions{})) {}

void read_as_format(const char* format, std::span<const std::uint8_t> bytes) {
  const TraceFormatInfo& info = format_named(format);
  DiscardingTextWriter writer;
  SilentDiagnostics diagnostics;
  InputStream input(std::make_unique<MemorySource>(bytes, kReadPiece), "fuzz");
  try {
    info.read(input, writer.sink(), diagnostics);
    input.report_damage(diagnostics);
  } catch (const InputError&) {
    // Damaged input: what came before the damage was written; nothing else to check.
  }
}

void process(std::span<const std::uint8_t> bytes, const std::vector<StageSpec>& stages) {
  DiscardingTextWriter writer;
  SilentDiagnostics diagnostics;
  try {
    const std::unique_ptr<InputStream> input = open_fuzz_input(bytes);
    Pipeline pipeline(stages, StageContext{}, writer.sink());
    (void)pipeline.run(*input, diagnostics);
  } catch (const InputError&) {
    // Unknown or empty input: refused before any record, as rtrace process refuses it.
  }
}

}  // namespace rtrace::fuzz
