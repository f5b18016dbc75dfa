#include "reports/function_stacks.h"

#include "reports/allocation_sites.h"
#include "reports/frame_text.h"

namespace rtrace::reports {

FunctionStacks::FunctionStacks(const ReportData& data, const std::vector<std::string>& wrappers)
    : data_(data), wrappers_(wrappers), of_frame_(data.frame_descriptions->size()) {}

std::uint32_t FunctionStacks::number(const std::string& name) {
  const auto [found, added] = numbers_.try_emplace(name, static_cast<std::uint32_t>(names_.size()));
  if (added) {
    names_.push_back(name);
  }
  return found->second;
}

const FunctionStacks::Expanded& FunctionStacks::expanded(std::uint32_t frame_index) {
  Expanded& expanded = of_frame_[frame_index];
  if (!expanded.done) {
    expanded.done = true;
    const FrameDetail& detail = (*data_.frame_descriptions)[frame_index].detail;
    const std::vector<LogicalFrame> frames = logical_frames(detail);
    for (std::size_t i = 0; i < frames.size(); ++i) {
      // A resolved frame is its function with its parameters (every line of it alike; the
      // functions inlined there follow the frame's own, as logical_frames lists them); an
      // unresolved one is where it lies.
      const SourcePosition& where = i == 0 ? detail.symbol.where : detail.symbol.inlined_by[i - 1];
      expanded.functions.push_back(
          number(frames[i].function.empty() ? frames[i].label : where.qualified_name()));
      expanded.allocator.push_back(allocator_frame(frames[i], wrappers_));
    }
  }
  return expanded;
}

std::span<const std::uint32_t> FunctionStacks::of(const SiteStats& site) {
  stack_.clear();
  if (site.node == CallingContextTree::kRoot) {
    stack_.push_back(number("(no backtrace)"));
    return stack_;
  }
  bool inner = true;  // still in the allocator's frames at the inner end
  data_.tree->for_each_frame(site.node, [&](std::uint32_t frame_index) {
    const Expanded& frame = expanded(frame_index);
    for (std::size_t i = 0; i < frame.functions.size(); ++i) {
      inner = inner && frame.allocator[i];
      if (!inner) {
        stack_.push_back(frame.functions[i]);
      }
    }
  });
  if (stack_.empty()) {
    stack_.push_back(number("(no frame outside the allocator)"));
  }
  return stack_;
}

}  // namespace rtrace::reports
