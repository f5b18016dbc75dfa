#include "model/metadata.h"

#include <algorithm>

namespace rtrace {

void Metadata::set(std::string_view key, std::string_view value) {
  const auto found = std::ranges::find(entries_, key, &std::pair<std::string, std::string>::first);
  if (found != entries_.end()) {
    found->second = value;
  } else {
    entries_.emplace_back(key, value);
  }
}

std::optional<std::string_view> Metadata::get(std::string_view key) const {
  const auto found = std::ranges::find(entries_, key, &std::pair<std::string, std::string>::first);
  if (found == entries_.end()) {
    return std::nullopt;
  }
  return found->second;
}

void Metadata::erase(std::string_view key) {
  std::erase_if(entries_, [key](const auto& entry) { return entry.first == key; });
}

}  // namespace rtrace
