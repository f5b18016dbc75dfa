#include "formats/sprtrace_text/text_escape.h"

#include <algorithm>

#include "formats/sprtrace_text/text_characters.h"

namespace rtrace::sprtrace_text {
namespace {

bool is_line_breaking(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 && c != '\t';
}

}  // namespace

std::string_view escaped(std::string_view text, std::string& scratch, bool escape_commas) {
  constexpr std::string_view kHexDigits = "0123456789abcdef";
  scratch.clear();
  for (const char c : text) {
    if (is_line_breaking(c) || (escape_commas && c == ',')) {
      const auto byte = static_cast<unsigned char>(c);
      scratch += "\\x";
      scratch += kHexDigits[byte >> 4];
      scratch += kHexDigits[byte & 0xF];
    } else {
      scratch += c;
    }
  }
  return scratch;
}

std::string_view printable_header_value(std::string_view text, std::string& scratch) {
  if (!has_control_character(text) && std::ranges::find(text, ',') == text.end()) {
    return text;
  }
  return escaped(text, scratch, true);
}

}  // namespace rtrace::sprtrace_text
