// The JSON of `rtrace report --json` and of the HTML page's data: documents built with
// nlohmann's ordered_json (keys keep the order they were added in) and written in the report's
// layout, which nlohmann's own dump() cannot produce: `{"key": value, ...}` and `[a, b]` on one
// line, the arrays that list sites or types one element per line, the top-level members one
// line each (members that belong together share a line). Scalars and strings are written by
// nlohmann's serializer.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace rtrace::reports {

using Json = nlohmann::ordered_json;

// A string value of `text`. Traces carry names in no particular encoding: valid UTF-8 is kept,
// and every byte that is not part of a valid UTF-8 sequence becomes the code point of the same
// value (U+0080 to U+00FF, as if the text were Latin-1), so the document is always valid JSON.
Json json_text(std::string_view text);

// Writes JSON values one at a time into a string with nlohmann's serializer, compact as dump()
// writes them, without a document of the whole: for arrays of millions of numbers (the HTML
// page's flame graph), which as a document cost more time and memory than the rest of the page.
// The caller writes the punctuation between the values.
class JsonWriter {
 public:
  explicit JsonWriter(std::string& out)
      : out_(out), serializer_(nlohmann::detail::output_adapter<char>(out), ' ') {}

  void value(const Json& value) { serializer_.dump(value, false, false, 0); }
  void punctuation(std::string_view text) { out_ += text; }
  // `"key":`
  void key(std::string_view key) {
    value(Json(key));
    out_ += ':';
  }

 private:
  std::string& out_;
  nlohmann::detail::serializer<Json> serializer_;
};

// The members of a JSON object, a line each: each element is an object whose members are
// written on one line, in order.
using JsonLines = std::vector<Json>;

struct JsonLayout {
  // The arrays written one element per line, as JSON pointers where "*" stands for any index
  // ("/types/*/peak/sites"); every other array and object is written on one line.
  std::vector<std::string> row_arrays{};
};

// Appends `value` as the layout wants it; `path` is its JSON pointer ("" for a document).
void append_json(std::string& out, const Json& value, const JsonLayout& layout,
                 std::string path = "");

// Appends the members of `lines` (no braces): each line's members joined by ", ", the lines by
// ",\n" and each line preceded by `indent`.
void append_json_lines(std::string& out, const JsonLines& lines, const JsonLayout& layout,
                       std::string_view indent);

}  // namespace rtrace::reports
