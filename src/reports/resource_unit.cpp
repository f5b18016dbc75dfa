#include "reports/resource_unit.h"

#include <fmt/format.h>

#include <string_view>

namespace rtrace::reports {
namespace {

constexpr std::string_view kInBytes = " in bytes";
// The type of sp-rtrace's memtransfer module (and rtrace's).
constexpr std::string_view kTransferType = "memtransfer";

// The last word of `description`, without a trailing "(...)", in the singular.
std::string last_noun(std::string_view description) {
  while (!description.empty() && description.back() == ' ') {
    description.remove_suffix(1);
  }
  if (description.ends_with(')')) {
    if (const std::size_t open = description.rfind('('); open != std::string_view::npos) {
      description = description.substr(0, open);
    }
    while (!description.empty() && description.back() == ' ') {
      description.remove_suffix(1);
    }
  }
  const std::size_t space = description.rfind(' ');
  std::string_view word =
      space == std::string_view::npos ? description : description.substr(space + 1);
  if (word.size() > 1 && word.ends_with('s') && !word.ends_with("ss")) {
    word.remove_suffix(1);
  }
  return word.empty() ? std::string("block") : std::string(word);
}

// Types whose description does not end in the noun a reader counts them in: the file module's
// (and the original's) "file pointer" is a FILE stream, "GObject instance" and "QObject instance"
// objects.
struct NamedNoun {
  std::string_view type;
  std::string_view noun;
};
constexpr NamedNoun kNamedNouns[] = {
    {"fd", "descriptor"},
    {"fp", "stream"},
    {"gobject", "object"},
    {"qobject", "object"},
};

std::string noun_of(const ResourceType& type) {
  for (const NamedNoun& named : kNamedNouns) {
    if (type.type == named.type) {
      return std::string(named.noun);
    }
  }
  return last_noun(type.description);
}

}  // namespace

std::string ResourceUnit::count(std::uint64_t resources) const {
  return fmt::format("{} {}(s)", resources, noun);
}

ResourceUnit resource_unit(const TypeTotals& totals) {
  if (totals.type.type == kTransferType) {
    return {.noun = "transfer", .sized = true, .transfers = true};
  }
  const std::string_view description = totals.type.description;
  if (description.empty() || description.ends_with(kInBytes)) {
    return {.noun = "block", .sized = true};
  }
  return {.noun = noun_of(totals.type), .sized = totals.largest_allocation > 1};
}

ResourceUnit site_unit(const ReportData& data, const SiteStats& site) {
  for (const TypeTotals& t : data.types) {
    if (t.type.id == site.type || (site.type == 1 && t.type.id == 0)) {
      return resource_unit(t);
    }
  }
  return {.noun = "block", .sized = true};
}

}  // namespace rtrace::reports
