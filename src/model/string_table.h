// Interned strings: each distinct string is stored once and named by a small id.
//
// Traces repeat a handful of function names, module paths and argument names millions of
// times; stages that keep calls keep ids instead of copies.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace rtrace {

using StringId = std::uint32_t;

class StringTable {
 public:
  StringId intern(std::string_view text);
  std::string_view view(StringId id) const { return strings_[id]; }
  std::size_t size() const { return strings_.size(); }

 private:
  std::deque<std::string> strings_;  // a deque never moves its elements
  std::unordered_map<std::string_view, StringId> ids_;
};

}  // namespace rtrace
