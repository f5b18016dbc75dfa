// What `rtrace process` (like sp-rtrace-postproc) does first to every input: drops the records
// that earlier stages derived (call groups of -c, leak summaries of -l) so that this run's
// stages make them again from the calls, and puts the calls of a compressed trace back into
// index order.
//
// A compressed trace (header: compress applied) lists calls group by group; they are held
// compactly (CallStore) until the end and delivered in index order, calls with equal indices in
// arrival order. Any other trace streams through untouched.
#pragma once

#include <vector>

#include "filters/call_store.h"
#include "model/trace_sink.h"

namespace rtrace {

class ExpandStage final : public ForwardingSink {
 public:
  using ForwardingSink::ForwardingSink;

  void header(const TraceHeader& header) override;
  void group(const CallGroup& /*group*/) override {}
  void leak_summary(const LeakSummary& /*summary*/) override {}
  void call(const CallRecord& record) override;
  void finish() override;

 private:
  bool holding_ = false;
  CallStore store_;
  std::vector<StoredCall> held_;
};

}  // namespace rtrace
