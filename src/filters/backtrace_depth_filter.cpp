#include "filters/backtrace_depth_filter.h"

namespace rtrace {

void BacktraceDepthFilter::process_info(const ProcessInfo& info) {
  ProcessInfo trimmed = info;
  trimmed.backtrace_depth = depth_;
  next().process_info(trimmed);
}

void BacktraceDepthFilter::call(const CallRecord& record) {
  if (record.frames.size() <= depth_) {
    next().call(record);
    return;
  }
  CallRecord trimmed = record;
  trimmed.frames = record.frames.first(depth_);
  next().call(trimmed);
}

void BacktraceDepthFilter::call_group(const CallGroup& group) {
  if (group.frames.size() <= depth_) {
    next().call_group(group);
    return;
  }
  CallGroup trimmed = group;
  trimmed.frames = group.frames.first(depth_);
  next().call_group(trimmed);
}

}  // namespace rtrace
