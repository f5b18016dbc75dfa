// Builds StackTrack raw event files from a list of entries, in any layout and either byte order:
// the tests' and the benchmark's source of traces (no StackTrack build exists to make them).
//
// It is written from the layout description alone (never through the decoder), so a test that
// encodes entries and expands them checks the decoder against an independent writer; the
// fixture test pins the encoder itself to the document's sample bytes.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "formats/stacktrack/raw_layout.h"

namespace rtrace::stacktrack::test {

enum class Order : std::uint8_t { Little, Big };

using Members = std::initializer_list<std::pair<std::string_view, std::uint64_t>>;

class RawEncoder {
 public:
  RawEncoder(const RawLayout& layout, Order order);

  // One entry of type `uname`: the named members set (the others 0), HAS_INFO when `has_info`.
  // `extra_flags` are or-ed into the flags as they are.
  RawEncoder& entry(std::string_view uname, std::uint64_t pid, std::uint64_t sequence,
                    Members members, bool has_info = false, std::uint32_t extra_flags = 0);
  // The INFO entries that carry `text`, `chunk` bytes each (the payload size when 0), the last
  // one marked INFO_END.
  RawEncoder& info(std::uint64_t pid, std::uint64_t sequence, std::string_view text,
                   std::size_t chunk = 0);
  // One INFO entry with exactly these bytes as text, INFO_END when `last`.
  RawEncoder& info_part(std::uint64_t pid, std::uint64_t sequence, std::string_view text,
                        bool last);
  // An entry with raw flags and a zero payload (for corrupt input).
  RawEncoder& raw_flags(std::uint64_t pid, std::uint64_t sequence, std::uint32_t flags);

  // The usual start of a process: PROLOGUE (when `prologue`), PROCINFO, TIMETYPE, TIMEINFO.
  RawEncoder& process_start(std::uint64_t pid, std::uint64_t ticks_per_second,
                            std::uint64_t start_ticks, bool prologue = true,
                            std::uint64_t write_count = 1);

  const std::string& bytes() const { return bytes_; }
  // Hands over what was encoded so far and starts afresh (for writing big files in pieces).
  std::string take() { return std::exchange(bytes_, std::string()); }

 private:
  void put(std::size_t at, std::uint32_t size, std::uint64_t value);
  std::size_t begin_entry(std::uint64_t pid, std::uint64_t sequence, std::uint64_t flags);
  std::uint32_t type_flags(const TypeLayout& type) const;

  const RawLayout& layout_;
  Order order_;
  std::string bytes_;
};

}  // namespace rtrace::stacktrack::test
