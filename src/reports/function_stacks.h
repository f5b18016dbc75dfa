// The report's backtraces as sequences of functions, for the call-tree views (bottom-up,
// top-down, caller/callee): each frame expanded into the functions it stands for (inlined calls
// included), each function numbered once by its name and parameters, and the allocator's and
// the program's wrappers' frames left out at the inner end, as the allocation sites leave them
// out (allocation_sites.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "reports/report_data.h"

namespace rtrace::reports {

class FunctionStacks {
 public:
  // `data` must outlive this.
  FunctionStacks(const ReportData& data, const std::vector<std::string>& wrappers);

  // The functions of the site's backtrace, innermost first; valid until the next call. A
  // backtrace of nothing but the allocator is one pseudo-function that says so, as is a site
  // without a backtrace.
  std::span<const std::uint32_t> of(const SiteStats& site);

  // The name of a function number: its qualified name and parameters, or where the frame lies
  // when it is not resolved.
  const std::string& name(std::uint32_t function) const { return names_[function]; }
  // Function numbers are below this.
  std::size_t count() const { return names_.size(); }

 private:
  struct Expanded {
    std::vector<std::uint32_t> functions{};  // innermost first
    std::vector<bool> allocator{};           // parallel to functions
    bool done = false;
  };
  const Expanded& expanded(std::uint32_t frame_index);
  std::uint32_t number(const std::string& name);

  const ReportData& data_;
  const std::vector<std::string>& wrappers_;
  std::vector<Expanded> of_frame_;  // by the tree's frame index
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t> numbers_;
  std::vector<std::uint32_t> stack_;
};

}  // namespace rtrace::reports
