// The RtraceCall of an allocation without arguments, as a module would describe it (for the
// tests of the tracer's encoding and ordering).
#pragma once

#include <cstdint>

#include "protocol/sprtrace_packets.h"
#include "tracer/api/tracer_api.h"

namespace rtrace::tracer {

inline RtraceCall allocation_call(const char* name, std::uint64_t size, std::uint64_t id) {
  return RtraceCall{.resource_type = 1,
                    .kind = sprtrace::kCallAlloc,
                    .name = name,
                    .size = size,
                    .id = id,
                    .args = nullptr,
                    .arg_count = 0};
}

}  // namespace rtrace::tracer
