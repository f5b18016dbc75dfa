#include "model/command_line.h"

#include <cstdint>

namespace rtrace {
namespace {

// Characters no shell treats specially: such an argument needs no quotes.
bool is_plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

constexpr std::string_view kHexDigits = "0123456789abcdef";

void append_quoted(std::string& out, std::string_view argument) {
  bool plain = !argument.empty();
  bool control = false;
  for (const char c : argument) {
    plain = plain && is_plain(c);
    control = control || is_control(c);
  }
  if (plain) {
    out += argument;
    return;
  }
  if (!control) {  // '...', a quote inside as '\''
    out += '\'';
    for (const char c : argument) {
      out += c == '\'' ? std::string_view("'\\''") : std::string_view(&c, 1);
    }
    out += '\'';
    return;
  }
  // $'...' (bash, zsh, ksh, and POSIX.1-2024): the text protocol holds no control characters.
  out += "$'";
  for (const char c : argument) {
    if (is_control(c)) {
      const auto byte = static_cast<unsigned char>(c);
      out += "\\x";
      out += kHexDigits[byte >> 4];
      out += kHexDigits[byte & 0xf];
    } else if (c == '\\' || c == '\'') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  out += '\'';
}

int hex_value(char c) {
  const std::size_t at = kHexDigits.find(c);
  return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

// Reads one $'...' body from `line` at `at` (after the opening quote) into `out`.
bool read_ansi_quoted(std::string_view line, std::size_t& at, std::string& out) {
  while (at < line.size() && line[at] != '\'') {
    if (line[at] != '\\') {
      out += line[at++];
      continue;
    }
    if (at + 1 >= line.size()) {
      return false;
    }
    const char escaped = line[at + 1];
    if (escaped == '\\' || escaped == '\'') {
      out += escaped;
      at += 2;
    } else if (escaped == 'x' && at + 3 < line.size() && hex_value(line[at + 2]) >= 0 &&
               hex_value(line[at + 3]) >= 0) {
      out += static_cast<char>(hex_value(line[at + 2]) * 16 + hex_value(line[at + 3]));
      at += 4;
    } else {
      return false;
    }
  }
  if (at >= line.size()) {
    return false;
  }
  ++at;  // the closing quote
  return true;
}

// Reads one argument starting at `at`, up to the space after it or the end of the line.
bool read_argument(std::string_view line, std::size_t& at, std::string& out) {
  while (at < line.size() && line[at] != ' ') {
    if (line.substr(at, 2) == "$'") {
      at += 2;
      if (!read_ansi_quoted(line, at, out)) {
        return false;
      }
    } else if (line[at] == '\'') {
      const std::size_t close = line.find('\'', at + 1);
      if (close == std::string_view::npos) {
        return false;
      }
      out += line.substr(at + 1, close - at - 1);
      at = close + 1;
    } else if (line[at] == '\\' && at + 1 < line.size()) {
      out += line[at + 1];
      at += 2;
    } else {
      out += line[at++];
    }
  }
  return true;
}

}  // namespace

std::string quote_command_line(std::span<const std::string> arguments) {
  std::string out;
  for (const std::string& argument : arguments) {
    if (!out.empty()) {
      out += ' ';
    }
    append_quoted(out, argument);
  }
  return out;
}

std::optional<std::vector<std::string>> parse_command_line(std::string_view line) {
  std::vector<std::string> arguments;
  std::size_t at = 0;
  while (at < line.size()) {
    std::string argument;
    if (!read_argument(line, at, argument)) {
      return std::nullopt;
    }
    arguments.push_back(std::move(argument));
    if (at < line.size()) {
      ++at;  // the space
    }
  }
  return arguments;
}

}  // namespace rtrace
