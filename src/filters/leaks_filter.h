// -l / --filter-leaks: keeps only the resources that are never released.
//
// An allocation is dropped together with the release that frees it; releases are always
// dropped. A resource type flagged refcount counts references instead: a second allocation of
// a live id adds a reference (and is dropped), and only the release of the last reference frees
// it. At the end the surviving calls go on in index order, followed by one LeakSummary record
// per resource type. The original prints wrong numbers from the third resource type on; these
// are true.
//
// Memory: the calls alive at any moment (compactly stored), not the trace.
#pragma once

#include <cstdint>
#include <vector>

#include "filters/call_store.h"
#include "filters/live_resources.h"
#include "pipeline/trace_sink.h"

namespace rtrace {

class LeaksFilter final : public ForwardingSink {
 public:
  using ForwardingSink::ForwardingSink;

  void header(const TraceHeader& header) override;
  void resource_type(const ResourceType& type) override;
  void call(const CallRecord& record) override;
  void finish() override;

 private:
  struct TypeSummary {
    ResourceType type;
    std::uint64_t blocks = 0;
    std::uint64_t bytes = 0;
  };

  std::uint32_t keep(const CallRecord& record);
  void release(std::uint32_t slot);
  void emit_survivors();
  void emit_summary();

  CallStore store_;
  std::vector<StoredCall> slots_;
  std::vector<bool> occupied_;
  std::vector<std::uint32_t> free_slots_;
  LiveResources<std::uint32_t> live_;  // resource -> slot of its allocation
  std::vector<TypeSummary> types_;     // in registry order
};

}  // namespace rtrace
