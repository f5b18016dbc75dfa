#include "filters/index_filter.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "io/option_file.h"

namespace rtrace {
namespace {

bool parse_index(std::string_view line, std::uint64_t& index) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
    line.remove_prefix(1);
  }
  int base = 10;
  if (line.starts_with("0x") || line.starts_with("0X")) {
    line.remove_prefix(2);
    base = 16;
  }
  const auto [end, error] = std::from_chars(line.data(), line.data() + line.size(), index, base);
  return error == std::errc{} && end != line.data();
}

}  // namespace

IndexSet load_index_file(const std::string& path) {
  const std::string text = read_option_file(path);
  IndexSet indices;
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find('\n'), rest.size());
    std::uint64_t index = 0;
    if (parse_index(rest.substr(0, end), index)) {
      indices.insert(index);
    }
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  return indices;
}

void IndexFilter::call(const CallRecord& record) {
  const bool listed = indices_.contains(record.call.index);
  if (listed == (mode_ == Mode::Include)) {
    next().call(record);
  }
}

}  // namespace rtrace
