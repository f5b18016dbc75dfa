#include "apitrace_test_support.h"

#include <cstring>

#include "formats/apitrace/container.h"
#include "formats/apitrace/decoder.h"
#include "io/diagnostics.h"

namespace rtrace::apitrace::test {
namespace {

// Hands out a string in small, uneven reads (as a pipe would), to exercise buffering.
class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string bytes) : bytes_(std::move(bytes)) {}
  std::size_t read(std::span<std::uint8_t> buffer) override {
    const std::size_t step = 1 + (calls_++ * 7919) % 50000;
    const std::size_t n = std::min({buffer.size(), bytes_.size() - used_, step});
    std::memcpy(buffer.data(), bytes_.data() + used_, n);
    used_ += n;
    return n;
  }

 private:
  std::string bytes_;
  std::size_t used_ = 0;
  std::size_t calls_ = 0;
};

}  // namespace

DumpResult dump_bytes(const std::string& file, const DumpOptions& options,
                      const DecoderLimits& limits) {
  DumpResult result;
  CollectingDiagnostics diagnostics;
  CallDumper dumper(options);
  try {
    OpenedTrace opened =
        open_trace(std::make_unique<MemorySource>(file), "t.trace", file.size(), diagnostics);
    Decoder decoder(*opened.stream, diagnostics, opened.check_end, limits);
    dumper.properties(decoder.header(), result.text);
    while (const Call* call = decoder.next()) {
      dumper.call(*call, result.text);
      ++result.calls;
    }
  } catch (const InputError& error) {
    result.error = error.what();
  }
  result.warnings = diagnostics.text();
  return result;
}

}  // namespace rtrace::apitrace::test
