// apitrace's --calls=SET: call numbers and ranges, e.g. `0-3,20,46-`, `*` for all.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace rtrace::apitrace {

class CallSet {
 public:
  // Everything.
  CallSet() = default;
  // Throws std::invalid_argument naming what it cannot read.
  static CallSet parse(std::string_view text);

  bool contains(std::uint64_t call_number) const;

 private:
  struct Range {
    std::uint64_t first;
    std::uint64_t last;  // inclusive
    std::uint64_t step;
  };
  std::vector<Range> ranges_;
  bool all_ = true;
};

}  // namespace rtrace::apitrace
