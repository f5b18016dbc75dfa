#include "io/json_string.h"

#include <fmt/format.h>

#include <cstdint>

namespace rtrace {

std::size_t utf8_sequence_length(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[i]); };
  const std::uint8_t lead = byte(0);
  std::size_t length = 0;
  std::uint32_t lowest = 0;
  std::uint32_t code = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2, lowest = 0x80, code = lead & 0x1fU;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3, lowest = 0x800, code = lead & 0x0fU;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4, lowest = 0x10000, code = lead & 0x07U;
  } else {
    return 0;
  }
  if (text.size() < length) {
    return 0;
  }
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0U) != 0x80) {
      return 0;
    }
    code = (code << 6U) | (byte(i) & 0x3fU);
  }
  const bool surrogate = code >= 0xd800 && code <= 0xdfff;
  return code < lowest || surrogate || code > 0x10ffff ? 0 : length;
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  out.reserve(text.size() + 2);
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto byte = static_cast<std::uint8_t>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20) {
      out += fmt::format("\\u{:04x}", byte);
    } else if (byte >= 0x80) {
      const std::size_t length = utf8_sequence_length(text.substr(i));
      if (length == 0) {
        out += fmt::format("\\u{:04x}", byte);
        ++i;
        continue;
      }
      out.append(text.substr(i, length));
      i += length;
      continue;
    } else {
      out += c;
    }
    ++i;
  }
  out += '"';
  return out;
}

}  // namespace rtrace
