#include "model/string_table.h"

namespace rtrace {

StringId StringTable::intern(std::string_view text) {
  if (auto it = ids_.find(text); it != ids_.end()) {
    return it->second;
  }
  const auto id = static_cast<StringId>(strings_.size());
  const std::string& stored = strings_.emplace_back(text);
  ids_.emplace(stored, id);
  return id;
}

}  // namespace rtrace
