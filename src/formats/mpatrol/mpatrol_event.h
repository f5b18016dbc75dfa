// What an mpatrol tracing file (`MTRC`, written by mpatrol's TRACE option) holds, as typed events.
//
// The decoder (mpatrol_decoder.h) hands these to a visitor one at a time; it keeps nothing but the
// two name caches, so a visitor that needs an event later copies what it needs.
#pragma once

#include <cstdint>
#include <string_view>

namespace rtrace::mpatrol {

// mpatrol's version number: major * 10000 + minor * 100 + patch (1.5.1 is 10501).
inline constexpr std::uint64_t kVersionWithSourceFields = 10405;  // 1.4.5 added them
inline constexpr std::uint64_t kNewestVersion = 10501;            // 1.5.1; any 1.5.x is read

struct Header {
  std::uint8_t word_size = 8;  // bytes per header word: 4 (ILP32 writer) or 8 (LP64)
  bool big_endian = false;     // the header words' byte order (records have none)
  std::uint64_t version = 0;

  bool has_source_fields() const { return version >= kVersionWithSourceFields; }
};

enum class RecordType : char {
  Alloc = 'A',     // a block allocated by the program
  Realloc = 'R',   // a block resized (it keeps the index of its original allocation)
  Free = 'F',      // a block freed (only the index: the reader remembers address and size)
  Reserve = 'H',   // memory mpatrol obtained from the system for the program's heap
  Internal = 'I',  // memory mpatrol obtained from the system for its own tables
};

struct Event {
  RecordType type = RecordType::Alloc;
  std::uint64_t offset = 0;   // byte offset of the record in the (decompressed) input
  std::uint64_t index = 0;    // allocation index (A, R, F)
  std::uint64_t address = 0;  // A, R (the new address), H, I
  std::uint64_t size = 0;     // A, R (the new size), H, I
  // From version 1.4.5 (A, R, F); 0 or empty when unknown. The strings stay valid until the
  // next event.
  std::uint64_t thread = 0;
  std::string_view function;
  std::string_view file;
  std::uint64_t line = 0;

  bool is_program_event() const {
    return type == RecordType::Alloc || type == RecordType::Realloc || type == RecordType::Free;
  }
};

// How the input ended.
enum class Ending : std::uint8_t {
  EndMarker,  // the closing `MTRC`: the traced program ended normally
  Truncated,  // the input stopped without it (a crashed program); already warned about
};

class Visitor {
 public:
  Visitor() = default;
  Visitor(const Visitor&) = delete;
  Visitor& operator=(const Visitor&) = delete;
  virtual ~Visitor() = default;

  virtual void header(const Header& header) = 0;
  virtual void event(const Event& event) = 0;
  // Called once after the last event, unless the input turned out to be corrupt.
  virtual void end(Ending ending) = 0;
};

}  // namespace rtrace::mpatrol
