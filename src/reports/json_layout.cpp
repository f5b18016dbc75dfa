#include "reports/json_layout.h"

#include <algorithm>
#include <cstdint>

#include "io/json_string.h"

namespace rtrace::reports {
namespace {

// Writes values in a layout; `path` is the JSON pointer of the value being written, extended
// and restored on the way down.
class LayoutWriter {
 public:
  LayoutWriter(std::string& out, const JsonLayout& layout, std::string path)
      : out_(out), writer_(out), layout_(layout), path_(std::move(path)) {}

  void value(const Json& value) {
    if (value.is_object()) {
      out_ += '{';
      members(value);
      out_ += '}';
    } else if (value.is_array()) {
      array(value);
    } else {
      writer_.value(value);
    }
  }

  void members(const Json& object) {
    bool first = true;
    for (const auto& [key, member] : object.items()) {
      out_ += first ? "" : ", ";
      first = false;
      writer_.value(Json(key));
      out_ += ": ";
      const std::size_t parent = path_.size();
      path_ += '/';
      path_ += key;
      value(member);
      path_.resize(parent);
    }
  }

 private:
  // Indices are always written as "*" in the path: "/types/*/peak/sites".
  void array(const Json& array) {
    const bool rows = std::ranges::find(layout_.row_arrays, path_) != layout_.row_arrays.end();
    const std::size_t parent = path_.size();
    path_ += "/*";
    out_ += '[';
    bool first = true;
    for (const Json& element : array) {
      out_ += rows ? (first ? "\n    " : ",\n    ") : (first ? "" : ", ");
      first = false;
      value(element);
    }
    path_.resize(parent);
    out_ += rows && !array.empty() ? "\n  ]" : "]";
  }

  std::string& out_;
  JsonWriter writer_;
  const JsonLayout& layout_;
  std::string path_;
};

}  // namespace

Json json_text(std::string_view text) {
  std::string valid;
  valid.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<std::uint8_t>(text[i]);
    const std::size_t length = byte < 0x80 ? 1 : utf8_sequence_length(text.substr(i));
    if (length == 0) {
      // The code point of the byte's value, as two bytes of UTF-8.
      valid += static_cast<char>(0xc0U | (byte >> 6U));
      valid += static_cast<char>(0x80U | (byte & 0x3fU));
      ++i;
      continue;
    }
    valid.append(text.substr(i, length));
    i += length;
  }
  return valid;
}

void append_json(std::string& out, const Json& value, const JsonLayout& layout, std::string path) {
  LayoutWriter(out, layout, std::move(path)).value(value);
}

void append_json_lines(std::string& out, const JsonLines& lines, const JsonLayout& layout,
                       std::string_view indent) {
  LayoutWriter writer(out, layout, "");
  bool first = true;
  for (const Json& line : lines) {
    out += first ? "" : ",\n";
    first = false;
    out += indent;
    writer.members(line);
  }
}

}  // namespace rtrace::reports
