// Format-specific header fields as key/value pairs.
//
// Keys are "<format>.<field>" ("sprtrace.byte_order", "sprtrace.pointer_size"); values are
// text. A writer looks up the keys of its own format and ignores the rest, so the model never
// grows a field that only one format understands.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rtrace {

class Metadata {
 public:
  // Sets `key` (replacing an earlier value).
  void set(std::string_view key, std::string_view value);
  // The value of `key`, or nullopt.
  std::optional<std::string_view> get(std::string_view key) const;
  std::string_view get_or(std::string_view key, std::string_view fallback) const {
    return get(key).value_or(fallback);
  }
  void erase(std::string_view key);

  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }

  friend bool operator==(const Metadata&, const Metadata&) = default;

 private:
  std::vector<std::pair<std::string, std::string>> entries_;  // in the order first set
};

}  // namespace rtrace
