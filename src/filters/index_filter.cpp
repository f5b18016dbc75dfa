#include "filters/index_filter.h"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string_view>

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
  std::ifstream file(path);
  if (!file) {
    throw std::runtime_error(fmt::format("{}: {}", path, std::strerror(errno)));
  }
  IndexSet indices;
  std::string line;
  while (std::getline(file, line)) {
    std::uint64_t index = 0;
    if (parse_index(line, index)) {
      indices.insert(index);
    }
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
