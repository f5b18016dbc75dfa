#include <array>
#include <utility>

#include "model/records.h"

namespace rtrace {
namespace {

struct KindWords {
  LeakKind kind;
  std::string_view name;
  std::string_view option;
};

constexpr std::array<KindWords, 4> kKindWords{{
    {LeakKind::Definite, "definitely lost", "definite"},
    {LeakKind::Indirect, "indirectly lost", "indirect"},
    {LeakKind::Possible, "possibly lost", "possible"},
    {LeakKind::Reachable, "still reachable", "reachable"},
}};

}  // namespace

std::string_view leak_kind_name(LeakKind kind) {
  for (const KindWords& words : kKindWords) {
    if (words.kind == kind) {
      return words.name;
    }
  }
  return "kinds unknown";
}

std::string_view leak_kind_option(LeakKind kind) {
  for (const KindWords& words : kKindWords) {
    if (words.kind == kind) {
      return words.option;
    }
  }
  return "unknown";
}

std::optional<LeakKind> leak_kind_from_option(std::string_view word) {
  for (const KindWords& words : kKindWords) {
    if (words.option == word) {
      return words.kind;
    }
  }
  return std::nullopt;
}

}  // namespace rtrace
