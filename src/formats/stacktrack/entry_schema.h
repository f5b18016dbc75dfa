// What the decoder needs to know about a layout, bound once: which payload type an entry's flags
// select, what that type means (HIT, SLOC, ...), and where the members it relies on are.
//
// The layout says where things are; the schema says which of them carry meaning (the scope of a
// HIT, the divisor of TIMETYPE, ...), found by the names the document gives them. A description
// whose types or members are named otherwise is refused with the name that is missing.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "formats/stacktrack/raw_layout.h"

namespace rtrace::stacktrack {

enum class EntryKind : std::uint8_t {
  Info,          // a part of the text that follows an entry with HAS_INFO
  Hit,           // a checkpoint was passed
  FileLoc,       // a source file (its name follows as INFO)
  FileProperty,  // a property of a file ("prop=value" follows)
  SourceLoc,     // a checkpoint's scope (its name follows as INFO)
  Prologue,      // the file's first entry: magic, version, sizes
  ProcInfo,      // a process and its write count
  TimeInfo,      // the process's start time
  TimeType,      // ticks per second
  Other,         // a type the description declares that rtrace gives no meaning
};

// The members with a meaning, across all kinds.
enum class Field : std::uint8_t {
  When,
  ScopeIndex,
  Tid,
  FileNum,
  WriteCount,
  Properties,
  PropertyNum,
  Style,
  LineNum,
  Magic,
  Version,
  InfoLen,
  EntrySize,
  PayloadOffset,
  ProcessId,
  StartHires,
  Start,
  TimeDivisor,
  TimeType,
};
inline constexpr std::size_t kFieldCount = static_cast<std::size_t>(Field::TimeType) + 1;

// How one member is read: `size` bytes at `offset` of the payload, sign-extended when signed.
struct MemberReader {
  std::uint32_t offset = 0;
  std::uint32_t size = 0;
  bool is_signed = false;
};

struct TypeBinding {
  const TypeLayout* layout = nullptr;
  std::size_t index = 0;  // of the type in the layout
  EntryKind kind = EntryKind::Other;
  std::array<MemberReader, kMaxMembers> readers{};
  std::size_t member_count = 0;
  // Index of each Field among the members, -1 where this kind has no such field.
  std::array<std::int8_t, kFieldCount> field_index{};
  // The other way round: the Field of each member, -1 for members without a meaning.
  std::array<std::int8_t, kMaxMembers> member_field{};
};

class EntrySchema {
 public:
  // Throws std::invalid_argument naming what the layout lacks.
  explicit EntrySchema(const RawLayout& layout);
  // The bindings point into the schema's own copy of the layout.
  EntrySchema(const EntrySchema&) = delete;
  EntrySchema& operator=(const EntrySchema&) = delete;

  // What `layout` lacks for decoding, or nothing.
  static std::optional<std::string> problem(const RawLayout& layout);

  const RawLayout& layout() const { return layout_; }
  bool is_info(std::uint64_t flags) const {
    return (flags & layout_.rules.info_mask) == layout_.rules.info_value;
  }
  // The binding the flags of a non-INFO entry select, or nullptr for an unknown type.
  const TypeBinding* select(std::uint64_t flags) const;
  const TypeBinding& binding(EntryKind kind) const;
  // The binding of the layout's type number `index`.
  const TypeBinding& binding_at(std::size_t index) const { return bindings_[index]; }

 private:
  RawLayout layout_;
  std::array<TypeBinding, kMaxTypes> bindings_{};
  // Type by selector, for entries with and without the global bit.
  std::array<std::int16_t, 256> by_global_selector_{};
  std::array<std::int16_t, 256> by_checkpoint_selector_{};
  std::array<std::int16_t, static_cast<std::size_t>(EntryKind::Other)> by_kind_{};
  unsigned type_shift_ = 0;
  unsigned global_shift_ = 0;
};

// Whether a member of this platform type is signed (int16, sctime_t, ...).
bool is_signed_type(std::string_view type);

}  // namespace rtrace::stacktrack
