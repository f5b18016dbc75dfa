// Interned backtraces: each distinct sequence of frames {address, symbol} is stored once.
#pragma once

#include "model/records.h"
#include "model/sequence_table.h"

namespace rtrace {

// A frame's words for the hash: its address and its symbol (not its padding).
inline std::array<std::uint64_t, 2> sequence_words(const Frame& frame) {
  return {frame.address, frame.symbol};
}

using BacktraceId = std::uint32_t;

class BacktraceTable : public SequenceTable<Frame> {
 public:
  std::span<const Frame> frames(BacktraceId id) const { return at(id); }
};

}  // namespace rtrace
