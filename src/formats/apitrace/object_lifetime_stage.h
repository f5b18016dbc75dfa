// The object-lifetime view of an apitrace trace: calls that create GL, EGL and GLX objects become
// allocations, calls that delete them become frees, so that the leaks stage, `rtrace report` and
// every other consumer of the model see objects the way they see memory blocks.
//
// It works on the model's call records (function name and arguments as `apitrace dump` prints
// them, the return value as the argument `return`), not on the decoder's value trees: the
// apitrace reader applies it, and the stage table offers it as "gl-objects" for any source of
// such records. Only calls of no kind (CallKind::Other) are looked at.
//
// Resource ids: an EGL/GLX handle or sync pointer is its own id. A GL name is per share group:
// the id is (share group << 32) | name, where share groups are numbered 1, 2, ... in the order
// their first context is created (0: no context known to be current). Each thread's current
// context follows eglMakeCurrent, glXMakeCurrent and glXMakeContextCurrent.
//
// Resource types: one per ObjectKind, ids 1 to kObjectKinds in ObjectKind order, announced
// after the header; a trace's own types (if any) move up behind them.
//
// A context destroyed with live objects: they stay live (and show as leaked), see
// rtrace-apitrace(1). Memory: one entry per live context and per thread.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/apitrace/gl_object_calls.h"
#include "model/trace_sink.h"

namespace rtrace::apitrace {

class ObjectLifetimeStage final : public ForwardingSink {
 public:
  // The header metadata key the stage sets; a trace that has it already went through the stage,
  // which then passes everything on unchanged.
  static constexpr std::string_view kAppliedKey = "apitrace.object-lifetimes";

  explicit ObjectLifetimeStage(TraceSink& next) : ForwardingSink(next) {}

  void header(const rtrace::TraceHeader& header) override;
  void resource_type(const ResourceType& type) override;
  void call(const CallRecord& record) override;

 private:
  struct Objects {
    ObjectKind kind;
    bool creates;
    std::vector<std::uint64_t> ids;
  };
  Objects objects_of(const CallRecord& record, const ObjectCall& what);
  void follow_contexts(const CallRecord& record, const ObjectCall& what);
  std::uint64_t resource_id(const CallRecord& record, ObjectKind kind, std::uint64_t name) const;

  bool active_ = true;
  std::uint32_t next_group_ = 1;
  std::unordered_map<std::uint64_t, std::uint32_t> context_groups_;  // live context -> group
  std::unordered_map<std::uint64_t, std::uint32_t> current_groups_;  // thread -> group
};

}  // namespace rtrace::apitrace
