#include "tracer/session/trace_registry.h"

#include <algorithm>
#include <atomic>
#include <cstddef>

namespace rtrace::tracer {

std::atomic<std::uint32_t> g_resource_count{0};

namespace {

constexpr std::size_t kMaxModules = 16;
// The protocol names resource types in 32-bit masks (the text registry's <hexmask>, `-R`): ids
// 1..32. Registrations beyond that get id 0, whose calls are never recorded.
constexpr std::size_t kMaxResources = kMaxResourceTypes;
constexpr std::size_t kNameSize = 64;

struct Module {
  char name[kNameSize];
  std::uint16_t major;
  std::uint16_t minor;
};

struct Resource {
  char type[kNameSize];
  char description[kNameSize];
  std::uint32_t flags;
};

Module g_modules[kMaxModules];
std::atomic<std::uint32_t> g_module_count{0};
Resource g_resources[kMaxResources];
char g_contexts[kMaxContexts][kNameSize];
std::atomic<std::uint32_t> g_context_slots{0};  // taken
std::atomic<std::uint32_t> g_context_count{0};  // taken and named, in order

void copy_name(char (&target)[kNameSize], const char* source) {
  std::size_t i = 0;
  for (; source != nullptr && source[i] != '\0' && i + 1 < kNameSize; ++i) {
    target[i] = source[i];
  }
  target[i] = '\0';
}

int context_index(std::uint32_t id) {
  return id == 0 ? -1 : __builtin_ctz(id);
}

}  // namespace

std::uint32_t registry_add_module(const char* name, std::uint16_t major, std::uint16_t minor) {
  const std::uint32_t id = g_module_count.load();
  if (id >= kMaxModules) {
    return id;
  }
  copy_name(g_modules[id].name, name);
  g_modules[id].major = major;
  g_modules[id].minor = minor;
  g_module_count.store(id + 1);
  return id;
}

std::uint32_t registry_add_resource(const char* type, const char* description,
                                    std::uint32_t flags) {
  const std::uint32_t index = g_resource_count.load();
  if (index >= kMaxResources) {
    return 0;
  }
  copy_name(g_resources[index].type, type);
  copy_name(g_resources[index].description, description);
  g_resources[index].flags = flags;
  g_resource_count.store(index + 1);
  return index + 1;
}

std::uint32_t registry_add_context(const char* name) {
  std::uint32_t index = g_context_slots.load();
  do {
    if (index >= kMaxContexts) {
      return 0;
    }
  } while (!g_context_slots.compare_exchange_weak(index, index + 1));
  copy_name(g_contexts[index], name);
  // Published in creation order, so the header never shows a context whose name is unwritten.
  std::uint32_t expected = index;
  while (!g_context_count.compare_exchange_weak(expected, index + 1)) {
    expected = index;
  }
  return std::uint32_t{1} << index;
}

bool registry_context_known(std::uint32_t id) {
  const std::uint32_t count = g_context_count.load(std::memory_order_relaxed);
  const std::uint32_t known = count >= 32 ? UINT32_MAX : (std::uint32_t{1} << count) - 1;
  return id != 0 && (id & ~known) == 0;
}

void encode_registry(PacketEncoder& encoder) {
  const std::uint32_t modules = g_module_count.load();
  for (std::uint32_t i = 0; i < modules && i < kMaxModules; ++i) {
    encoder.begin_packet(sprtrace::PacketType::ModuleInfo);
    encoder.u32(i);
    encoder.u32(sprtrace::module_version(g_modules[i].major, g_modules[i].minor));
    encoder.string(g_modules[i].name);
    encoder.end_packet();
  }
  const std::uint32_t resources = g_resource_count.load();
  for (std::uint32_t i = 0; i < resources && i < kMaxResources; ++i) {
    encoder.begin_packet(sprtrace::PacketType::ResourceRegistry);
    encoder.u32(i + 1);
    encoder.u32(g_resources[i].flags);
    encoder.string(g_resources[i].type);
    encoder.string(g_resources[i].description);
    encoder.end_packet();
  }
  const std::uint32_t contexts = g_context_count.load();
  for (std::uint32_t i = 0; i < contexts && i < kMaxContexts; ++i) {
    encode_context(encoder, std::uint32_t{1} << i);
  }
}

void encode_context(PacketEncoder& encoder, std::uint32_t id) {
  const int index = context_index(id);
  if (index < 0) {
    return;
  }
  encoder.begin_packet(sprtrace::PacketType::ContextRegistry);
  encoder.u32(id);
  encoder.string(g_contexts[index]);
  encoder.end_packet();
}

}  // namespace rtrace::tracer
