// -R / --resource MASK: keeps the calls of the selected resource types.
//
// A type is selected when its bit (1 << (id - 1)) is in MASK; the registry keeps only those.
// When exactly one type remains it becomes type 1, as in the original, so that the text output
// shows it as `<1>` and drops the `<type>` tags from call lines. The decision needs the whole
// registry, so registry entries wait here until the first call (or the end of the trace).
#pragma once

#include <cstdint>
#include <vector>

#include "model/trace_sink.h"

namespace rtrace {

class ResourceFilter final : public ForwardingSink {
 public:
  ResourceFilter(TraceSink& next, std::uint32_t mask) : ForwardingSink(next), mask_(mask) {}

  void resource_type(const ResourceType& type) override;
  void call(const CallRecord& record) override;
  void group(const CallGroup& group) override;
  void finish() override;

 private:
  bool selected(std::uint32_t type) const;
  void release_registry();

  std::uint32_t mask_;
  std::vector<ResourceType> waiting_;
  bool registry_released_ = false;
  std::uint32_t renumbered_from_ = 0;  // the single remaining type's original id, or 0
};

}  // namespace rtrace
