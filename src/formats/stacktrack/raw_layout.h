// The layout of a Boost StackTrack raw event buffer, as data.
//
// StackTrack writes fixed-size entries whose layout depends on the platform that wrote them
// (member sizes, alignment, entry size). Its tool `expand_events --show_format` describes that
// layout as a RAW_FORMAT XML document; rtrace keeps the same information in a RawLayout, so the
// decoder reads entries of any platform from a description instead of from fixed offsets.
// default_layout.h fills one from the table of NOTES.md; layout_xml.h reads and writes the XML.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rtrace::stacktrack {

// One field of a header or a payload: where it is and how wide (1, 2, 4 or 8 bytes). `type` is
// the platform's type name (hitime_t, int16, ...); it decides signedness and how a value prints.
struct MemberLayout {
  std::string name;
  std::string type;
  std::uint32_t size = 0;
  std::uint32_t offset = 0;  // from the start of the payload (or of the entry, for the header)
  std::string desc;
};

// One payload type (HIT, FLOC, ...). An entry is of this type when the type selector computed
// from its flags (see FlagRules) equals `selector`.
struct TypeLayout {
  std::string uname;  // HIT
  std::string name;   // hit
  std::uint32_t typeindex = 0;
  std::string type;        // ev_hit
  std::uint32_t size = 0;  // sizeof the payload struct, padding included
  std::string followedby;  // what its INFO series holds; "~" for nothing declared
  std::string desc;
  std::vector<MemberLayout> members;
  std::uint32_t selector = 0;  // the IS_<uname> flag value
};

// How an entry's flags select its type:
//  - INFO when (flags & info_mask) == info_value;
//  - otherwise, when flags & global_bit, the selector is (flags & global_type_mask) shifted down
//    to bit 0, and selects one of the global types (those not tied to a checkpoint: PROLOGUE,
//    PROCINFO, TIMEINFO, TIMETYPE, whose selectors include the global bit when shifted up);
//  - otherwise it is (flags & type_mask) shifted down, and selects one of the other types (HIT,
//    FLOC, FPROPERTY, SLOC).
// has_info (in an entry without the global bit) says INFO entries of the same sequence follow;
// info_end marks the last of them.
struct FlagRules {
  std::uint32_t info_mask = 0;
  std::uint32_t info_value = 0;
  std::uint32_t global_bit = 0;
  std::uint32_t global_type_mask = 0;
  std::uint32_t type_mask = 0;
  std::uint32_t has_info = 0;
  std::uint32_t info_end = 0;
};

// Whether entries of the type with this selector carry it under the global mask (the selector,
// shifted into that mask, includes the global bit); otherwise they carry it under the type mask.
bool is_global_selector(const FlagRules& rules, std::uint32_t selector);

// A named flag value, printed as <FLAG name= value=/>; the rules above are read from these.
struct FlagValue {
  std::string name;
  std::uint32_t value = 0;
};

struct RawLayout {
  std::uint32_t version = 0;         // of the description (RAW_FORMAT version)
  std::uint32_t entry_size = 0;      // bytes per entry
  std::uint32_t payload_offset = 0;  // where the payload starts in an entry
  std::uint32_t payload_size = 0;
  std::uint32_t magic = 0;  // PROLOGUE's _12345678 in the file's own byte order
  // The entry header: flags, pid and sequence, in this order.
  MemberLayout flags;
  MemberLayout pid;
  MemberLayout sequence;
  std::vector<TypeLayout> types;
  std::vector<FlagValue> flag_values;
  FlagRules rules;

  const TypeLayout* find_type(std::string_view uname) const;
};

// The names of the flag values that make up FlagRules (and IS_<uname> for each type).
inline constexpr const char* kInfoMaskFlag = "INFO_MASK";
inline constexpr const char* kIsInfoFlag = "IS_INFO";
inline constexpr const char* kGlobalFlag = "GLOBAL";
inline constexpr const char* kGlobalTypeMaskFlag = "GLOBAL_TYPE_MASK";
inline constexpr const char* kTypeMaskFlag = "TYPE_MASK";
inline constexpr const char* kHasInfoFlag = "HAS_INFO";
inline constexpr const char* kInfoEndFlag = "INFO_END";

// Fills `rules` and every type's `selector` from `flag_values`, then checks that the layout is
// usable: every field inside its entry or payload, widths of 1/2/4/8 bytes, no two types with
// the same selector. Returns what is wrong, or nothing.
std::optional<std::string> finish_layout(RawLayout& layout);

// Limits a description must respect (a hostile --format file cannot make us allocate more).
inline constexpr std::uint32_t kMaxEntrySize = 4096;
inline constexpr std::size_t kMaxTypes = 64;
inline constexpr std::size_t kMaxMembers = 32;

}  // namespace rtrace::stacktrack
