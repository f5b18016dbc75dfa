// --include FILE / --exclude FILE: keeps (or drops) the calls whose index is listed.
//
// The file holds one call index per line (decimal, or hexadecimal with 0x); lines that do not
// start with a number are ignored, as the original does.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>

#include "model/trace_sink.h"

namespace rtrace {

using IndexSet = std::unordered_set<std::uint64_t>;

// Reads an index file; throws std::runtime_error when it cannot be opened.
IndexSet load_index_file(const std::string& path);

class IndexFilter final : public ForwardingSink {
 public:
  enum class Mode : std::uint8_t { Include, Exclude };

  IndexFilter(TraceSink& next, IndexSet indices, Mode mode)
      : ForwardingSink(next), indices_(std::move(indices)), mode_(mode) {}

  void call(const CallRecord& record) override;

 private:
  IndexSet indices_;
  Mode mode_;
};

}  // namespace rtrace
