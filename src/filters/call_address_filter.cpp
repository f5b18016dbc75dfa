#include "filters/call_address_filter.h"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>

namespace rtrace {
namespace {

bool parse_hex(std::string_view text, std::uint64_t& value) {
  if (text.starts_with("0x") || text.starts_with("0X")) {
    text.remove_prefix(2);
  }
  if (text.empty()) {
    return false;
  }
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  return error == std::errc{} && end == text.data() + text.size();
}

enum class Linking : std::uint8_t { Fixed, Relocated, Unknown };

// ET_EXEC objects are linked at fixed addresses; everything else is relocated at load time.
Linking linking_of(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  unsigned char header[EI_NIDENT + 2] = {};
  if (!file.read(reinterpret_cast<char*>(header), sizeof header)) {
    return Linking::Unknown;
  }
  if (header[EI_MAG0] != ELFMAG0 || header[EI_MAG1] != ELFMAG1 || header[EI_MAG2] != ELFMAG2 ||
      header[EI_MAG3] != ELFMAG3) {
    return Linking::Unknown;
  }
  const bool little = header[EI_DATA] == ELFDATA2LSB;
  const unsigned type = little ? header[EI_NIDENT] | header[EI_NIDENT + 1] << 8
                               : header[EI_NIDENT] << 8 | header[EI_NIDENT + 1];
  return type == ET_EXEC ? Linking::Fixed : Linking::Relocated;
}

// Where START lies in the address space of the trace. Without the module file (a trace from
// another machine) a START inside the mapping can only be meant as absolute.
Address absolute_start(Address start, const Mapping& mapping) {
  switch (linking_of(mapping.path)) {
    case Linking::Fixed:
      return start;
    case Linking::Relocated:
      return mapping.from + start;
    case Linking::Unknown:
      break;
  }
  return start >= mapping.from && start < mapping.to ? start : mapping.from + start;
}

}  // namespace

std::optional<CallAddressRange> parse_call_address(std::string_view text) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return std::nullopt;
  }
  const std::string_view range = text.substr(colon + 1);
  const std::size_t plus = range.find('+');
  if (plus == std::string_view::npos) {
    return std::nullopt;
  }
  CallAddressRange parsed{.target = std::string(text.substr(0, colon))};
  if (!parse_hex(range.substr(0, plus), parsed.start) ||
      !parse_hex(range.substr(plus + 1), parsed.size)) {
    return std::nullopt;
  }
  return parsed;
}

void CallAddressFilter::mapping(const Mapping& mapping) {
  if (!absolute_start_ && mapping.path.find(range_.target) != std::string::npos) {
    absolute_start_ = absolute_start(range_.start, mapping);
  }
  next().mapping(mapping);
}

void CallAddressFilter::check_found() {
  if (absolute_start_ || warned_) {
    return;
  }
  warned_ = true;
  warn_(fmt::format("--call-address: no module matches '{}'; keeping every call", range_.target));
}

void CallAddressFilter::call(const CallRecord& record) {
  check_found();
  if (!absolute_start_) {
    next().call(record);
    return;
  }
  const Address start = *absolute_start_;
  const bool inside = std::ranges::any_of(record.frames, [&](const Frame& frame) {
    return frame.address >= start && frame.address - start < range_.size;
  });
  if (inside) {
    next().call(record);
  }
}

void CallAddressFilter::finish() {
  check_found();
  next().finish();
}

}  // namespace rtrace
