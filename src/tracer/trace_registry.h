// What the trace header announces: the tracing modules (MINF), the resource types (RESR) and the
// call contexts (CTXR). Fixed-size tables in static storage: registration happens in library
// constructors and from the context API, never allocates.
#pragma once

#include <cstdint>

#include "tracer/packet_encoder.h"

namespace rtrace::tracer {

inline constexpr std::uint32_t kMaxContexts = 32;
inline constexpr std::uint32_t kMaxResourceTypes = 32;

// Modules register when they start, which is at their first interposed call: the memory module
// usually starts first, whatever the order of LD_PRELOAD. The trace shows them in load order:
// `load_rank` is the module's place in LD_PRELOAD (main 0), and encode_registry numbers the
// modules, and their resource types, in that order (registration order among equal ranks).

// Returns the module's registration index.
std::uint32_t registry_add_module(const char* name, std::uint16_t major, std::uint16_t minor,
                                  std::uint32_t load_rank);
// Registers a resource type of the module registered last; returns its internal id (1, 2, 3,
// ...), which a module puts in its calls: the id written to the trace is
// registry_wire_resource(id). Returns 0 once kMaxResourceTypes are registered (the protocol's
// resource masks have 32 bits).
std::uint32_t registry_add_resource(const char* type, const char* description, std::uint32_t flags);
// The resource type id the trace shows for internal id `id` (see above); `id` itself until the
// registry was first encoded, and for types registered after that.
std::uint32_t registry_wire_resource(std::uint32_t id);
// Whether `id` is the internal id of a registered type: calls of other ids are never recorded.
bool registry_resource_known(std::uint32_t id);
// Returns the context's bit (1, 2, 4, ...), or 0 when all kMaxContexts are taken.
std::uint32_t registry_add_context(const char* name);
// Whether every bit of `id` belongs to a created context.
bool registry_context_known(std::uint32_t id);

// MINF for every module, RESR for every resource type (both in load order), CTXR for every
// context.
void encode_registry(PacketEncoder& encoder);
// The CTXR packet of one context.
void encode_context(PacketEncoder& encoder, std::uint32_t id);

}  // namespace rtrace::tracer
