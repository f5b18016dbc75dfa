// What the trace header announces: the tracing modules (MINF), the resource types (RESR) and the
// call contexts (CTXR). Fixed-size tables in static storage: registration happens in library
// constructors and from the context API, never allocates.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "tracer/output/packet_encoder.h"

namespace rtrace::tracer {

inline constexpr std::uint32_t kMaxContexts = 32;
inline constexpr std::uint32_t kMaxResourceTypes = 32;

// Returns the module's id (0 for main, then 1, 2, ...).
std::uint32_t registry_add_module(const char* name, std::uint16_t major, std::uint16_t minor);
// Returns the resource type's id (1, 2, 3, ...), or 0 once kMaxResourceTypes are registered (the
// protocol's resource masks have 32 bits).
std::uint32_t registry_add_resource(const char* type, const char* description, std::uint32_t flags);
// How many resource types are registered (never more than kMaxResourceTypes).
extern std::atomic<std::uint32_t> g_resource_count;
// Whether `id` is the id of a registered type: calls of other ids are never recorded. Inline:
// every traced call asks.
inline bool registry_resource_known(std::uint32_t id) {
  return id != 0 && id <= std::min<std::uint32_t>(g_resource_count.load(), kMaxResourceTypes);
}
// Returns the context's bit (1, 2, 4, ...), or 0 when all kMaxContexts are taken.
std::uint32_t registry_add_context(const char* name);
// Whether every bit of `id` belongs to a created context.
bool registry_context_known(std::uint32_t id);

// MINF for every module, RESR for every resource type, CTXR for every context.
void encode_registry(PacketEncoder& encoder);
// The CTXR packet of one context.
void encode_context(PacketEncoder& encoder, std::uint32_t id);

}  // namespace rtrace::tracer
