#include "filters/backtrace_depth_filter.h"

namespace rtrace {

void BacktraceDepthFilter::process(const ProcessInfo& info) {
  ProcessInfo trimmed = info;
  trimmed.backtrace_depth = depth_;
  next().process(trimmed);
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

}  // namespace rtrace
