#include "formats/stacktrack/default_layout.h"

#include <algorithm>
#include <initializer_list>
#include <stdexcept>

namespace rtrace::stacktrack {
namespace {

// Member widths of the platform the document describes (NOTES.md): hitime_t is an unsigned
// 64-bit tick count, sctime_t that platform's 32-bit time_t.
struct PlatformType {
  const char* name;
  std::uint32_t size;
};
constexpr PlatformType kPlatformTypes[] = {
    {"hitime_t", 8},   {"scopex_t", 2}, {"st_tid_t", 2}, {"st_pid_t", 2},
    {"int16", 2},      {"wcount_t", 2}, {"uns16", 2},    {"uns32", 4},
    {"sequence_t", 4}, {"flags_t", 2},  {"char", 1},     {"sctime_t", 4},
};

std::uint32_t size_of(const char* type) {
  for (const PlatformType& t : kPlatformTypes) {
    if (std::string_view(t.name) == type) {
      return t.size;
    }
  }
  throw std::logic_error("default layout: unknown member type");
}

struct MemberRow {
  const char* name;
  const char* type;
  std::uint32_t offset;
  const char* desc;
};

struct TypeRow {
  const char* uname;
  const char* name;
  const char* followedby;
  const char* desc;
  std::initializer_list<MemberRow> members;
};

// The document's payload table, in its declaration order (which gives the type indexes), with
// the offsets of natural alignment that NOTES.md lists.
const std::initializer_list<TypeRow> kTypes = {
    {"HIT",
     "hit",
     "~",
     "ev_hit captures basic entry/exit/step data",
     {{"when", "hitime_t", 0, "when the hit occured"},
      {"scopeIndex", "scopex_t", 8, "where the hit occured"},
      {"tid", "st_tid_t", 10, "thread in which the hit occured"}}},
    {"FLOC",
     "fileloc",
     "filename",
     "File Location data",
     {{"filenum", "int16", 0, "file index"},
      {"writeCount", "wcount_t", 2, "write count"},
      {"properties", "int16", 4, "number of properties"}}},
    {"FPROPERTY",
     "fproperty",
     "prop=value",
     "file properties",
     {{"filenum", "int16", 0, "file index"},
      {"writeCount", "wcount_t", 2, "write count"},
      {"propertynum", "int16", 4, "property index"}}},
    {"SLOC",
     "sourceloc",
     "~",
     "source location",
     {{"scopeIndex", "scopex_t", 0, "scope index"},
      {"style", "int16", 2, "scope style"},
      {"linenum", "int16", 4, "line number"},
      {"writeCount", "wcount_t", 6, "write count"},
      {"filenum", "int16", 8, "file number"}}},
    {"PROLOGUE",
     "prologue",
     "~",
     "Prologue data",
     {{"_12345678", "uns32", 0, "magic identifier"},
      {"version", "uns32", 4, "stacktrack format version"},
      {"info_len", "char", 8, "length of _info field"},
      {"entry_size", "char", 9, "size of entry"},
      {"payload_offset", "char", 10, "offset of payload in entry"}}},
    {"PROCINFO",
     "procinfo",
     "~",
     "Process data",
     {{"pid", "st_pid_t", 0, "proccess ID"}, {"writeCount", "wcount_t", 2, "write count"}}},
    {"TIMEINFO",
     "timeinfo",
     "~",
     "Time info (start time) data",
     {{"start_hires", "hitime_t", 0, "start time in raw hi-res form"},
      {"start", "sctime_t", 8, "start time in CTIME form"}}},
    {"TIMETYPE",
     "timetype",
     "~",
     "time conversion data",
     {{"tdiv", "hitime_t", 0, "time divisor"}, {"timetype", "uns16", 8, "time type"}}},
};

// Flags (NOTES.md): INFO when the low byte is all ones; types 4-7 carry the GLOBAL bit and take
// their index from bits 12-14; the others from bits 4-7; HAS_INFO and INFO_END.
const std::initializer_list<FlagValue> kRuleFlags = {
    {kTypeMaskFlag, 0x00F0}, {kGlobalFlag, 0x4000}, {kGlobalTypeMaskFlag, 0x7000},
    {kInfoMaskFlag, 0x00FF}, {kIsInfoFlag, 0x00FF}, {kHasInfoFlag, 0x1000},
    {kInfoEndFlag, 0x0200},
};

// sizeof the struct: the end of its last member rounded up to its widest member.
std::uint32_t struct_size(const TypeLayout& type) {
  std::uint32_t end = 0;
  std::uint32_t align = 1;
  for (const MemberLayout& m : type.members) {
    end = std::max(end, m.offset + m.size);
    align = std::max(align, m.size);
  }
  return (end + align - 1) / align * align;
}

RawLayout build() {
  RawLayout layout;
  layout.version = 100;
  layout.entry_size = 24;
  layout.payload_offset = 8;
  layout.payload_size = 16;
  layout.magic = 0x12345678;
  layout.flags = {"_entryFlags", "flags_t", size_of("flags_t"), 0,
                  "combination of FLAGS used to interpret payload"};
  layout.pid = {"_pid", "st_pid_t", size_of("st_pid_t"), 2, "process ID"};
  layout.sequence = {"_sequence", "sequence_t", size_of("sequence_t"), 4, "sequence number"};
  std::uint32_t index = 0;
  for (const TypeRow& row : kTypes) {
    TypeLayout type{.uname = row.uname,
                    .name = row.name,
                    .typeindex = index,
                    .type = std::string("ev_") + row.name,
                    .followedby = row.followedby,
                    .desc = row.desc,
                    .members = {},
                    .selector = index};
    for (const MemberRow& m : row.members) {
      type.members.push_back({m.name, m.type, size_of(m.type), m.offset, m.desc});
    }
    type.size = struct_size(type);
    layout.flag_values.push_back({"IS_" + type.uname, index});
    layout.types.push_back(std::move(type));
    ++index;
  }
  layout.flag_values.insert(layout.flag_values.end(), kRuleFlags.begin(), kRuleFlags.end());
  if (const auto problem = finish_layout(layout)) {
    throw std::logic_error("default layout: " + *problem);
  }
  return layout;
}

}  // namespace

const RawLayout& default_layout() {
  static const RawLayout layout = build();
  return layout;
}

}  // namespace rtrace::stacktrack
