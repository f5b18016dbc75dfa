#include "formats/stacktrack/raw_layout.h"

#include <fmt/format.h>

#include <bit>
#include <set>

namespace rtrace::stacktrack {
namespace {

bool valid_width(std::uint32_t size) {
  return size == 1 || size == 2 || size == 4 || size == 8;
}

// A field of `size` bytes at `offset` inside a region of `region` bytes, overflow-safe.
bool fits(const MemberLayout& m, std::uint32_t region) {
  return valid_width(m.size) && m.offset <= region && m.size <= region - m.offset;
}

std::optional<std::uint32_t> flag_value(const RawLayout& layout, std::string_view name) {
  for (const FlagValue& f : layout.flag_values) {
    if (f.name == name) {
      return f.value;
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_entry(const RawLayout& layout) {
  if (layout.entry_size == 0 || layout.entry_size > kMaxEntrySize) {
    return fmt::format("entry size {} (1 to {} bytes)", layout.entry_size, kMaxEntrySize);
  }
  if (layout.payload_offset > layout.entry_size ||
      layout.payload_size > layout.entry_size - layout.payload_offset) {
    return fmt::format("payload of {} bytes at {} does not fit in an entry of {} bytes",
                       layout.payload_size, layout.payload_offset, layout.entry_size);
  }
  for (const MemberLayout* m : {&layout.flags, &layout.pid, &layout.sequence}) {
    if (!fits(*m, layout.entry_size)) {
      return fmt::format("header field {} ({} bytes at {}) does not fit in an entry of {} bytes",
                         m->name, m->size, m->offset, layout.entry_size);
    }
  }
  if (layout.types.size() > kMaxTypes) {
    return fmt::format("{} types (at most {})", layout.types.size(), kMaxTypes);
  }
  return std::nullopt;
}

std::optional<std::string> check_type(const TypeLayout& type, std::uint32_t payload_size) {
  if (type.members.size() > kMaxMembers) {
    return fmt::format("type {} has {} members (at most {})", type.uname, type.members.size(),
                       kMaxMembers);
  }
  for (const MemberLayout& m : type.members) {
    if (!fits(m, payload_size)) {
      return fmt::format("member {} of {} ({} bytes at {}) does not fit in a payload of {} bytes",
                         m.name, type.uname, m.size, m.offset, payload_size);
    }
  }
  return std::nullopt;
}

}  // namespace

bool is_global_selector(const FlagRules& rules, std::uint32_t selector) {
  const std::uint64_t shifted = std::uint64_t{selector} << std::countr_zero(rules.global_type_mask);
  return (shifted & rules.global_type_mask) == shifted && (shifted & rules.global_bit) != 0;
}

const TypeLayout* RawLayout::find_type(std::string_view uname) const {
  for (const TypeLayout& t : types) {
    if (t.uname == uname) {
      return &t;
    }
  }
  return nullptr;
}

std::optional<std::string> finish_layout(RawLayout& layout) {
  if (auto problem = check_entry(layout)) {
    return problem;
  }
  struct Rule {
    const char* name;
    std::uint32_t* target;
  };
  FlagRules& r = layout.rules;
  for (const Rule rule :
       {Rule{kInfoMaskFlag, &r.info_mask}, Rule{kIsInfoFlag, &r.info_value},
        Rule{kGlobalFlag, &r.global_bit}, Rule{kGlobalTypeMaskFlag, &r.global_type_mask},
        Rule{kTypeMaskFlag, &r.type_mask}, Rule{kHasInfoFlag, &r.has_info},
        Rule{kInfoEndFlag, &r.info_end}}) {
    const auto value = flag_value(layout, rule.name);
    if (!value) {
      return fmt::format("no FLAG {}", rule.name);
    }
    *rule.target = *value;
  }
  if (r.info_mask == 0 || r.type_mask == 0 || r.global_type_mask == 0) {
    return std::string("INFO_MASK, TYPE_MASK and GLOBAL_TYPE_MASK must not be 0");
  }
  // Selectors index a small table in the decoder: masks may span at most 8 bits once shifted.
  for (const std::uint32_t mask : {r.type_mask, r.global_type_mask}) {
    if ((mask >> std::countr_zero(mask)) > 0xFF) {
      return fmt::format("type mask {:#06x} is wider than 8 bits", mask);
    }
  }
  std::set<std::uint32_t> selectors;
  std::set<std::string> unames;
  for (TypeLayout& type : layout.types) {
    if (auto problem = check_type(type, layout.payload_size)) {
      return problem;
    }
    if (!unames.insert(type.uname).second) {
      return fmt::format("two types named {}", type.uname);
    }
    type.selector = flag_value(layout, "IS_" + type.uname).value_or(type.typeindex);
    if (type.selector > 0xFF) {
      return fmt::format("type {} has selector {:#x} (at most 0xff)", type.uname, type.selector);
    }
    const std::uint64_t as_checkpoint = std::uint64_t{type.selector}
                                        << std::countr_zero(layout.rules.type_mask);
    if (!is_global_selector(layout.rules, type.selector) &&
        (as_checkpoint & layout.rules.type_mask) != as_checkpoint) {
      return fmt::format(
          "type {} has selector {:#x}, which neither TYPE_MASK nor "
          "GLOBAL_TYPE_MASK with the GLOBAL bit can hold",
          type.uname, type.selector);
    }
    if (!selectors.insert(type.selector).second) {
      return fmt::format("two types have the selector {:#x}", type.selector);
    }
  }
  return std::nullopt;
}

}  // namespace rtrace::stacktrack
