#include "formats/stacktrack/entry_schema.h"

#include <fmt/format.h>

#include <bit>
#include <initializer_list>
#include <stdexcept>

namespace rtrace::stacktrack {
namespace {

struct FieldName {
  Field field;
  const char* member;
};

struct KindRow {
  EntryKind kind;
  const char* uname;
  std::initializer_list<FieldName> fields;
};

// The types and members the decoder gives meaning to, by the document's names.
const std::initializer_list<KindRow> kKinds = {
    {EntryKind::Hit,
     "HIT",
     {{Field::When, "when"}, {Field::ScopeIndex, "scopeIndex"}, {Field::Tid, "tid"}}},
    {EntryKind::FileLoc,
     "FLOC",
     {{Field::FileNum, "filenum"},
      {Field::WriteCount, "writeCount"},
      {Field::Properties, "properties"}}},
    {EntryKind::FileProperty,
     "FPROPERTY",
     {{Field::FileNum, "filenum"},
      {Field::WriteCount, "writeCount"},
      {Field::PropertyNum, "propertynum"}}},
    {EntryKind::SourceLoc,
     "SLOC",
     {{Field::ScopeIndex, "scopeIndex"},
      {Field::Style, "style"},
      {Field::LineNum, "linenum"},
      {Field::WriteCount, "writeCount"},
      {Field::FileNum, "filenum"}}},
    {EntryKind::Prologue,
     "PROLOGUE",
     {{Field::Magic, "_12345678"},
      {Field::Version, "version"},
      {Field::InfoLen, "info_len"},
      {Field::EntrySize, "entry_size"},
      {Field::PayloadOffset, "payload_offset"}}},
    {EntryKind::ProcInfo,
     "PROCINFO",
     {{Field::ProcessId, "pid"}, {Field::WriteCount, "writeCount"}}},
    {EntryKind::TimeInfo,
     "TIMEINFO",
     {{Field::StartHires, "start_hires"}, {Field::Start, "start"}}},
    {EntryKind::TimeType,
     "TIMETYPE",
     {{Field::TimeDivisor, "tdiv"}, {Field::TimeType, "timetype"}}},
};

int member_index(const TypeLayout& type, std::string_view name) {
  for (std::size_t i = 0; i < type.members.size(); ++i) {
    if (type.members[i].name == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace

bool is_signed_type(std::string_view type) {
  return type.starts_with("int") || type == "sctime_t";
}

std::optional<std::string> EntrySchema::problem(const RawLayout& layout) {
  for (const KindRow& row : kKinds) {
    const TypeLayout* type = layout.find_type(row.uname);
    if (type == nullptr) {
      return fmt::format("no TYPE {}", row.uname);
    }
    for (const FieldName& f : row.fields) {
      if (member_index(*type, f.member) < 0) {
        return fmt::format("TYPE {} has no MEMBER {}", row.uname, f.member);
      }
    }
  }
  return std::nullopt;
}

EntrySchema::EntrySchema(const RawLayout& layout) : layout_(layout) {
  if (const auto what = problem(layout_)) {
    throw std::invalid_argument("StackTrack layout: " + *what);
  }
  by_global_selector_.fill(-1);
  by_checkpoint_selector_.fill(-1);
  by_kind_.fill(-1);
  type_shift_ = static_cast<unsigned>(std::countr_zero(layout_.rules.type_mask));
  global_shift_ = static_cast<unsigned>(std::countr_zero(layout_.rules.global_type_mask));
  for (std::size_t t = 0; t < layout_.types.size(); ++t) {
    const TypeLayout& type = layout_.types[t];
    TypeBinding& b = bindings_[t];
    b.layout = &type;
    b.index = t;
    b.member_count = type.members.size();
    b.field_index.fill(-1);
    b.member_field.fill(-1);
    for (std::size_t m = 0; m < type.members.size(); ++m) {
      const MemberLayout& member = type.members[m];
      b.readers[m] = {member.offset, member.size, is_signed_type(member.type)};
    }
    for (const KindRow& row : kKinds) {
      if (type.uname == row.uname) {
        b.kind = row.kind;
        by_kind_[static_cast<std::size_t>(row.kind)] = static_cast<std::int16_t>(t);
        for (const FieldName& f : row.fields) {
          const int m = member_index(type, f.member);
          b.field_index[static_cast<std::size_t>(f.field)] = static_cast<std::int8_t>(m);
          b.member_field[static_cast<std::size_t>(m)] = static_cast<std::int8_t>(f.field);
        }
      }
    }
    auto& by_selector = is_global_selector(layout_.rules, type.selector) ? by_global_selector_
                                                                         : by_checkpoint_selector_;
    by_selector[type.selector] = static_cast<std::int16_t>(t);
  }
}

const TypeBinding* EntrySchema::select(std::uint64_t flags) const {
  const FlagRules& r = layout_.rules;
  const bool global = (flags & r.global_bit) != 0;
  const std::uint64_t selector =
      global ? (flags & r.global_type_mask) >> global_shift_ : (flags & r.type_mask) >> type_shift_;
  const std::int16_t t = (global ? by_global_selector_ : by_checkpoint_selector_)[selector & 0xFF];
  return t < 0 ? nullptr : &bindings_[static_cast<std::size_t>(t)];
}

const TypeBinding& EntrySchema::binding(EntryKind kind) const {
  return bindings_[static_cast<std::size_t>(by_kind_[static_cast<std::size_t>(kind)])];
}

}  // namespace rtrace::stacktrack
