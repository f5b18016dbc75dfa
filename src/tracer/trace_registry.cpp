#include "tracer/trace_registry.h"

#include <algorithm>
#include <atomic>
#include <cstddef>

namespace rtrace::tracer {
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
  std::uint32_t load_rank;
};

struct Resource {
  char type[kNameSize];
  char description[kNameSize];
  std::uint32_t flags;
  std::uint32_t module;  // registration index of its module
};

Module g_modules[kMaxModules];
std::atomic<std::uint32_t> g_module_count{0};
Resource g_resources[kMaxResources];
std::atomic<std::uint32_t> g_resource_count{0};
// Internal resource id -> the id in the trace (0: not ordered yet). Read by every recorded call.
std::atomic<std::uint32_t> g_wire_ids[kMaxResources + 1];
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

// The registration indices of the modules, in load order.
std::uint32_t modules_in_load_order(std::uint32_t (&order)[kMaxModules]) {
  const std::uint32_t count = std::min<std::uint32_t>(g_module_count.load(), kMaxModules);
  for (std::uint32_t i = 0; i < count; ++i) {
    // Insertion sort, stable: a handful of modules.
    std::uint32_t at = i;
    while (at > 0 && g_modules[order[at - 1]].load_rank > g_modules[i].load_rank) {
      order[at] = order[at - 1];
      --at;
    }
    order[at] = i;
  }
  return count;
}

// Numbers the resource types module by module in load order (see registry_wire_resource).
void order_resources(const std::uint32_t (&modules)[kMaxModules], std::uint32_t module_count) {
  const std::uint32_t resources = std::min<std::uint32_t>(g_resource_count.load(), kMaxResources);
  std::uint32_t next = 1;
  for (std::uint32_t m = 0; m < module_count; ++m) {
    for (std::uint32_t i = 0; i < resources; ++i) {
      if (g_resources[i].module == modules[m]) {
        g_wire_ids[i + 1].store(next++, std::memory_order_relaxed);
      }
    }
  }
  for (std::uint32_t i = 0; i < resources; ++i) {
    if (g_resources[i].module >= module_count) {
      g_wire_ids[i + 1].store(next++, std::memory_order_relaxed);  // registered by no module
    }
  }
}

}  // namespace

std::uint32_t registry_add_module(const char* name, std::uint16_t major, std::uint16_t minor,
                                  std::uint32_t load_rank) {
  const std::uint32_t id = g_module_count.load();
  if (id >= kMaxModules) {
    return id;
  }
  copy_name(g_modules[id].name, name);
  g_modules[id].major = major;
  g_modules[id].minor = minor;
  g_modules[id].load_rank = load_rank;
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
  const std::uint32_t modules = g_module_count.load();
  g_resources[index].module = modules == 0 ? kMaxModules : modules - 1;
  g_resource_count.store(index + 1);
  return index + 1;
}

bool registry_resource_known(std::uint32_t id) {
  return id != 0 && id <= std::min<std::uint32_t>(g_resource_count.load(), kMaxResources);
}

std::uint32_t registry_wire_resource(std::uint32_t id) {
  if (id == 0 || id > kMaxResources) {
    return id;
  }
  const std::uint32_t wire = g_wire_ids[id].load(std::memory_order_relaxed);
  return wire != 0 ? wire : id;
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
  std::uint32_t modules[kMaxModules];
  const std::uint32_t module_count = modules_in_load_order(modules);
  order_resources(modules, module_count);
  for (std::uint32_t m = 0; m < module_count; ++m) {
    const Module& module = g_modules[modules[m]];
    encoder.begin_packet(sprtrace::PacketType::ModuleInfo);
    encoder.u32(m);
    encoder.u32(sprtrace::module_version(module.major, module.minor));
    encoder.string(module.name);
    encoder.end_packet();
  }
  const std::uint32_t resources = std::min<std::uint32_t>(g_resource_count.load(), kMaxResources);
  for (std::uint32_t wire = 1; wire <= resources; ++wire) {
    for (std::uint32_t i = 0; i < resources; ++i) {
      if (registry_wire_resource(i + 1) != wire) {
        continue;
      }
      encoder.begin_packet(sprtrace::PacketType::ResourceRegistry);
      encoder.u32(wire);
      encoder.u32(g_resources[i].flags);
      encoder.string(g_resources[i].type);
      encoder.string(g_resources[i].description);
      encoder.end_packet();
    }
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
