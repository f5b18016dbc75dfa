#include "io/terminal_text.h"

#include <cstdint>

#include "io/json_string.h"

namespace rtrace {
namespace {

constexpr std::string_view kHexDigits = "0123456789abcdef";

bool is_c1(std::uint8_t byte) {
  return byte >= 0x80 && byte <= 0x9f;
}

// The character that starts `text`: how many bytes it has, and whether it is escaped.
// `keep_newlines`: '\n' is kept (a document's line break).
struct Character {
  std::size_t length = 1;
  bool escape = false;
};

Character next_character(std::string_view text, bool keep_newlines) {
  const auto byte = static_cast<std::uint8_t>(text[0]);
  if (byte < 0x20) {
    return {1, byte != '\t' && !(keep_newlines && byte == '\n')};
  }
  if (byte < 0x80) {
    return {1, byte == 0x7f};
  }
  const std::size_t length = utf8_sequence_length(text);
  if (length == 0) {
    return {1, is_c1(byte)};  // a lone byte: only 0x80 to 0x9f act as controls
  }
  // U+0080 to U+009F are 0xc2 0x80 to 0xc2 0x9f.
  return {length, byte == 0xc2 && is_c1(static_cast<std::uint8_t>(text[1]))};
}

bool needs_escape(std::string_view text, bool keep_newlines) {
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<std::uint8_t>(text[i]);
    // The usual byte (printable ASCII) is decided without looking further.
    if ((byte >= 0x20 && byte < 0x7f) || byte == '\t') {
      ++i;
      continue;
    }
    const Character character = next_character(text.substr(i), keep_newlines);
    if (character.escape) {
      return true;
    }
    i += character.length;
  }
  return false;
}

std::string escaped(std::string_view text, bool keep_newlines) {
  if (!needs_escape(text, keep_newlines)) {
    return std::string(text);
  }
  std::string out;
  out.reserve(text.size() + 16);
  for (std::size_t i = 0; i < text.size();) {
    const Character character = next_character(text.substr(i), keep_newlines);
    for (const char c : text.substr(i, character.length)) {
      if (!character.escape) {
        out += c;
        continue;
      }
      const auto byte = static_cast<std::uint8_t>(c);
      out += "\\x";
      out += kHexDigits[byte >> 4];
      out += kHexDigits[byte & 0xfU];
    }
    i += character.length;
  }
  return out;
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  return escaped(text, false);
}

std::string terminal_safe_lines(std::string_view text) {
  return escaped(text, true);
}

bool needs_terminal_escape(std::string_view text) {
  return needs_escape(text, false);
}

}  // namespace rtrace
