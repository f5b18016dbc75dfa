// Writes mpatrol tracing files as the mpatrol library does (trace.c of 1.5.1): for tests and for
// the benchmark generator, in either byte order, word size and record layout.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "formats/mpatrol/mpatrol_event.h"

namespace rtrace::mpatrol {

// Where an event was made; what the 1.4.5+ layout adds to A, R and F records.
struct SourceInfo {
  std::uint64_t thread = 0;
  std::string_view function = {};
  std::string_view file = {};
  std::uint64_t line = 0;
};

// The writing side of a name cache: 32 slots reused least recently used first, so a name that
// is still cached costs one byte.
class NameCacheWriter {
 public:
  void append(std::string& out, std::string_view name);

 private:
  struct Entry {
    std::string name;
    unsigned slot = 0;
    std::uint64_t last_use = 0;
  };
  std::array<Entry, 32> entries_{};
  unsigned used_ = 0;
  std::uint64_t clock_ = 0;
};

class TraceWriter {
 public:
  // Appends the magic and the two header words (the byte-order mark 1 and the version).
  explicit TraceWriter(const Header& header);

  void alloc(std::uint64_t index, std::uint64_t address, std::uint64_t size,
             const SourceInfo& source = {});
  void realloc(std::uint64_t index, std::uint64_t address, std::uint64_t size,
               const SourceInfo& source = {});
  void free(std::uint64_t index, const SourceInfo& source = {});
  void reserve(std::uint64_t address, std::uint64_t size);
  void internal(std::uint64_t address, std::uint64_t size);
  void end_marker();

  // What was written so far; callers may move it out and clear it to write in pieces.
  std::string& bytes() { return bytes_; }

 private:
  void header_word(std::uint64_t value);
  void source(const SourceInfo& info);

  Header header_;
  std::string bytes_;
  NameCacheWriter functions_;
  NameCacheWriter files_;
};

}  // namespace rtrace::mpatrol
