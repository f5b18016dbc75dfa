// Helpers for the mpatrol tests: decoding bytes held in memory into a list of events, and running
// the mptrace emulation through the library into files of a scratch directory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/mpatrol/mpatrol_decoder.h"
#include "formats/mpatrol/mpatrol_event.h"
#include "io/byte_source.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/memory_source.h"

namespace rtrace::test {

// An event with its own copies of the names.
struct OwnedEvent {
  mpatrol::RecordType type = mpatrol::RecordType::Alloc;
  std::uint64_t offset = 0;
  std::uint64_t index = 0;
  std::uint64_t address = 0;
  std::uint64_t size = 0;
  std::uint64_t thread = 0;
  std::string function;
  std::string file;
  std::uint64_t line = 0;

  // Everything but the offset (which depends on the header's word size and layout).
  bool same_content(const OwnedEvent& o) const {
    return type == o.type && index == o.index && address == o.address && size == o.size &&
           thread == o.thread && function == o.function && file == o.file && line == o.line;
  }
};

class RecordingVisitor final : public mpatrol::Visitor {
 public:
  void header(const mpatrol::Header& h) override { header_ = h; }
  void event(const mpatrol::Event& e) override {
    events_.push_back(OwnedEvent{e.type, e.offset, e.index, e.address, e.size, e.thread,
                                 std::string(e.function), std::string(e.file), e.line});
  }
  void end(mpatrol::Ending ending) override { ending_ = ending; }

  std::optional<mpatrol::Header> header_;
  std::vector<OwnedEvent> events_;
  std::optional<mpatrol::Ending> ending_;
};

// What decoding some bytes gave.
struct DecodeResult {
  RecordingVisitor visitor;
  std::string warnings;
  bool failed = false;
  std::uint64_t error_position = 0;
  std::string error;
};

inline std::unique_ptr<DecodeResult> decode_bytes(std::string bytes,
                                                  std::size_t piece = std::size_t{1} << 20) {
  auto result = std::make_unique<DecodeResult>();
  auto input = open_input(std::make_unique<MemorySource>(std::move(bytes), piece), "t");
  CollectingDiagnostics diagnostics;
  try {
    mpatrol::decode(*input, result->visitor, diagnostics);
  } catch (const InputError& error) {
    result->failed = true;
    result->error_position = error.position();
    result->error = error.what();
  }
  result->warnings = diagnostics.text();
  return result;
}

}  // namespace rtrace::test
