#include "raw_encoder.h"

#include <bit>
#include <stdexcept>

namespace rtrace::stacktrack::test {

RawEncoder::RawEncoder(const RawLayout& layout, Order order) : layout_(layout), order_(order) {}

void RawEncoder::put(std::size_t at, std::uint32_t size, std::uint64_t value) {
  for (std::uint32_t i = 0; i < size; ++i) {
    const std::uint32_t shift = 8 * (order_ == Order::Little ? i : size - 1 - i);
    bytes_[at + i] = static_cast<char>((value >> shift) & 0xFF);
  }
}

std::size_t RawEncoder::begin_entry(std::uint64_t pid, std::uint64_t sequence,
                                    std::uint64_t flags) {
  const std::size_t at = bytes_.size();
  bytes_.resize(at + layout_.entry_size, '\0');
  put(at + layout_.flags.offset, layout_.flags.size, flags);
  put(at + layout_.pid.offset, layout_.pid.size, pid);
  put(at + layout_.sequence.offset, layout_.sequence.size, sequence);
  return at;
}

// The flags that select `type`: its selector under the global mask when that sets the global
// bit (PROLOGUE ... TIMETYPE), under the checkpoint type mask otherwise.
std::uint32_t RawEncoder::type_flags(const TypeLayout& type) const {
  const FlagRules& r = layout_.rules;
  if (is_global_selector(r, type.selector)) {
    return type.selector << std::countr_zero(r.global_type_mask);
  }
  return type.selector << std::countr_zero(r.type_mask);
}

RawEncoder& RawEncoder::entry(std::string_view uname, std::uint64_t pid, std::uint64_t sequence,
                              Members members, bool has_info, std::uint32_t extra_flags) {
  const TypeLayout* type = layout_.find_type(uname);
  if (type == nullptr) {
    throw std::invalid_argument("encoder: no type " + std::string(uname));
  }
  const std::uint32_t flags =
      type_flags(*type) | (has_info ? layout_.rules.has_info : 0) | extra_flags;
  const std::size_t at = begin_entry(pid, sequence, flags) + layout_.payload_offset;
  for (const auto& [name, value] : members) {
    bool found = false;
    for (const MemberLayout& m : type->members) {
      if (m.name == name) {
        put(at + m.offset, m.size, value);
        found = true;
      }
    }
    if (!found) {
      throw std::invalid_argument("encoder: no member " + std::string(name));
    }
  }
  return *this;
}

RawEncoder& RawEncoder::info_part(std::uint64_t pid, std::uint64_t sequence, std::string_view text,
                                  bool last) {
  const FlagRules& r = layout_.rules;
  const std::size_t at =
      begin_entry(pid, sequence, r.info_value | (last ? r.info_end : 0)) + layout_.payload_offset;
  bytes_.replace(at, text.size(), text);
  return *this;
}

RawEncoder& RawEncoder::info(std::uint64_t pid, std::uint64_t sequence, std::string_view text,
                             std::size_t chunk) {
  chunk = chunk == 0 ? layout_.payload_size : chunk;
  do {
    const std::string_view part = text.substr(0, chunk);
    text.remove_prefix(part.size());
    info_part(pid, sequence, part, text.empty());
  } while (!text.empty());
  return *this;
}

RawEncoder& RawEncoder::raw_flags(std::uint64_t pid, std::uint64_t sequence, std::uint32_t flags) {
  begin_entry(pid, sequence, flags);
  return *this;
}

RawEncoder& RawEncoder::process_start(std::uint64_t pid, std::uint64_t ticks_per_second,
                                      std::uint64_t start_ticks, bool prologue,
                                      std::uint64_t write_count) {
  if (prologue) {
    entry("PROLOGUE", pid, 0,
          {{"_12345678", layout_.magic},
           {"version", 256},
           {"info_len", layout_.payload_size},
           {"entry_size", layout_.entry_size},
           {"payload_offset", layout_.payload_offset}});
  }
  entry("PROCINFO", pid, 0, {{"pid", pid}, {"writeCount", write_count}});
  entry("TIMETYPE", pid, 0, {{"tdiv", ticks_per_second}, {"timetype", 0x20}});
  entry("TIMEINFO", pid, 0, {{"start_hires", start_ticks}, {"start", 1111756865}});
  return *this;
}

}  // namespace rtrace::stacktrack::test
