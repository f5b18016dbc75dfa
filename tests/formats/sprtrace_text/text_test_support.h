// Helpers shared by the text format tests: run text through the reader and writer in memory.
#pragma once

#include <cstring>
#include <memory>
#include <string>

#include "filters/expand_stage.h"
#include "formats/sprtrace_text/text_reader.h"
#include "formats/sprtrace_text/text_writer.h"
#include "io/byte_source.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/output_stream.h"
#include "support/test_paths.h"

namespace rtrace::test {

inline constexpr const char* kTestOrigin = "rtrace 0.1.0";

// Bytes held in memory, handed out in small pieces so that line handling across buffer refills
// is exercised too.
class StringSource final : public ByteSource {
 public:
  explicit StringSource(std::string bytes, std::size_t piece = 4096)
      : bytes_(std::move(bytes)), piece_(piece) {}
  std::size_t read(std::span<std::uint8_t> buffer) override {
    const std::size_t n = std::min({buffer.size(), bytes_.size() - used_, piece_});
    std::memcpy(buffer.data(), bytes_.data() + used_, n);
    used_ += n;
    return n;
  }

 private:
  std::string bytes_;
  std::size_t used_ = 0;
  std::size_t piece_;
};

inline std::unique_ptr<InputStream> input_from(std::string bytes, std::string name = "input.txt") {
  return open_input(std::make_unique<StringSource>(std::move(bytes)), std::move(name));
}

// Runs `feed(TraceSink&)` into a TextWriter and returns what it printed.
template <typename Feed>
std::string write_text(Feed&& feed, const std::string& origin = kTestOrigin) {
  ScratchDir dir;
  const std::filesystem::path path = dir / "out.txt";
  {
    OutputStream out(path.string(), {});
    TextWriter writer(out, TextWriterOptions{.origin = origin});
    feed(static_cast<TraceSink&>(writer));
    out.commit();
  }
  return read_file(path);
}

// Text in, text out, as `rtrace process` does without options.
// Text in, text out as the post-processor does it: the derived records of the input (groups,
// leak summaries) go, and compressed calls come back in index order.
inline std::string text_to_text(const std::string& text) {
  return write_text([&](TraceSink& sink) {
    CollectingDiagnostics diagnostics;
    const std::unique_ptr<InputStream> input = input_from(text);
    ExpandStage expand(sink);
    read_sprtrace_text(*input, expand, diagnostics);
  });
}

}  // namespace rtrace::test
