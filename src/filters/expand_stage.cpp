#include "filters/expand_stage.h"

#include <algorithm>

namespace rtrace {

void ExpandStage::header(const TraceHeader& header) {
  holding_ = header.applied.compress;
  TraceHeader expanded = header;
  expanded.applied.compress = false;
  next().header(expanded);
}

void ExpandStage::call(const CallRecord& record) {
  if (!holding_) {
    next().call(record);
    return;
  }
  held_.push_back(store_.store(record));
}

void ExpandStage::finish() {
  std::ranges::stable_sort(held_, {}, [](const StoredCall& s) { return s.call.index; });
  std::vector<CallRecord> records;
  std::vector<Argument> arguments;
  for (const StoredCall& held : held_) {
    store_.expand([&](auto visit) { visit(held); }, true, records, arguments);
    next().call(records.front());
  }
  held_.clear();
  next().finish();
}

}  // namespace rtrace
