// Interned backtraces: each distinct sequence of frames {address, symbol} is stored once.
#pragma once

#include <cstring>

#include "model/records.h"
#include "model/sequence_table.h"

namespace rtrace {

// A frame's 12 bytes of content (its 4 bytes of padding left out).
inline std::size_t sequence_bytes(const Frame& frame, std::uint8_t* to) {
  std::memcpy(to, &frame.address, sizeof frame.address);
  std::memcpy(to + sizeof frame.address, &frame.symbol, sizeof frame.symbol);
  return sizeof frame.address + sizeof frame.symbol;
}

using BacktraceId = std::uint32_t;

class BacktraceTable : public SequenceTable<Frame> {
 public:
  std::span<const Frame> frames(BacktraceId id) const { return at(id); }
};

}  // namespace rtrace
