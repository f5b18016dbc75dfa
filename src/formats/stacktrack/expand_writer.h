// `expand_events` output: one XML element per entry, as the StackTrack document's sample shows
// and NOTES.md pins down.
//
//   <NAME flags="0x%04x" pid="0x%04x" seq="%u" member="value" .../>
//
// Members print in declaration order: integers in decimal, tid, timetype and PROCINFO's pid as
// 0x%04x, times as seconds since the process's start (%f; `start_hires` is 0 and `tdiv` 1 by
// that rule), or as raw tick counts when asked. INFO prints its text XML-escaped.
#pragma once

#include <array>
#include <string>

#include "formats/stacktrack/event_decoder.h"

namespace rtrace::stacktrack {

struct ExpandOptions {
  bool raw_times = false;  // print hitime_t values as tick counts
};

class ExpandWriter {
 public:
  ExpandWriter(const EntrySchema& schema, ExpandOptions options);

  // Appends the entry's line (with its newline) to `out`.
  void write(const Entry& entry, std::string& out) const;

  // How a member prints: decimal, 0x%04x, seconds since the start, or a divisor in seconds.
  enum class Style : std::uint8_t { Unsigned, Signed, Hex, Time, Duration };

 private:
  void write_member(Style style, std::uint64_t value, const ProcessContext& process,
                    std::string& out) const;

  ExpandOptions options_;
  // How each member of each type prints, by type position in the layout.
  std::array<std::array<Style, kMaxMembers>, kMaxTypes> styles_{};
  // ` name="` for each member, ready to append.
  std::array<std::array<std::string, kMaxMembers>, kMaxTypes> prefixes_;
};

}  // namespace rtrace::stacktrack
