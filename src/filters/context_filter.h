// -C / --context MASK: keeps the calls made in the selected contexts.
//
// MASK 0 keeps the calls made outside every context; any other mask keeps the calls whose
// context mask shares a bit with it. The context registry keeps only the selected contexts.
// The original applies this before -l, so a block allocated inside a selected context and
// released outside it counts as a leak; the pipeline puts this stage before the leaks stage.
#pragma once

#include <cstdint>

#include "model/trace_sink.h"

namespace rtrace {

class ContextFilter final : public ForwardingSink {
 public:
  ContextFilter(TraceSink& next, std::uint32_t mask) : ForwardingSink(next), mask_(mask) {}

  void context(const ContextInfo& context) override;
  void call(const CallRecord& record) override;

 private:
  std::uint32_t mask_;
};

}  // namespace rtrace
