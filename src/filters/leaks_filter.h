// -l / --filter-leaks: keeps only the resources that are never released.
//
// What stays: every allocation whose resource is still alive at the end, with its arguments and
// backtrace, then one LeakSummary record per resource type; every record that is not a call
// (header, resource and context registries, symbols, maps...) passes on unchanged, as the kept
// calls need them to be read. What goes: an allocation together with the release that frees it,
// every release, and every call that neither allocates nor releases (CallKind Other, Enter,
// Exit: an ordinary GL call of an apitrace trace, a StackTrack checkpoint hit): it holds no
// resource, so it cannot leak, and keeping it would make the output as long as the trace. (The
// original post-processor kept such calls; its tracer never wrote them.)
//
// A resource type flagged refcount counts references instead: a second allocation of a live id
// adds a reference (and is dropped), and only the release of the last reference frees it. At
// the end the surviving calls go on in index order. The original prints wrong numbers from the
// third resource type on; these are true.
//
// Memory: the allocations alive at any moment. Each keeps its own copy of its arguments (freed
// with it); function names and backtraces are shared, one copy per distinct name or stack.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "filters/call_store.h"
#include "filters/live_resources.h"
#include "model/trace_sink.h"

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
  void count_leak(const Call& call);

  CallStore store_;
  // Each allocation alive at the moment has a slot: its call (name and backtrace in the store),
  // whether it is alive, and its own arguments, packed into one string (each name and value as
  // a 32-bit length then the text). Arguments live apart from the calls, and only once a call
  // has any: a release then touches two bits and, for a call with arguments, its string, never
  // the stored call (a random slot of millions, which the cache would miss).
  std::vector<StoredCall> slots_;
  std::vector<bool> occupied_;          // by slot
  std::vector<bool> has_arguments_;     // by slot
  std::vector<std::string> arguments_;  // by slot, sized only once a call has arguments
  std::vector<std::uint32_t> free_slots_;
  LiveResources<std::uint32_t> live_;  // resource -> slot of its allocation
  std::vector<TypeSummary> types_;     // in registry order
};

}  // namespace rtrace
