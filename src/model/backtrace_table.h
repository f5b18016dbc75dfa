// Interned backtraces: each distinct sequence of frames {address, symbol} is stored once.
#pragma once

#include "model/records.h"
#include "model/sequence_table.h"

namespace rtrace {

inline std::uint64_t sequence_word(const Frame& frame) {
  return frame.address ^ (std::uint64_t{frame.symbol} << 48);
}

using BacktraceId = std::uint32_t;

class BacktraceTable : public SequenceTable<Frame> {
 public:
  std::span<const Frame> frames(BacktraceId id) const { return at(id); }
};

}  // namespace rtrace
