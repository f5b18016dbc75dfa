#include "tracer/output/live_blocks.h"

#include <sys/mman.h>

#include <atomic>
#include <cstring>

namespace rtrace::tracer {
namespace {

constexpr std::size_t kFirstSlots = std::size_t{1} << 16;
constexpr char kMemoryType[] = "memory";

// Only the writer (drain lock held) changes the table; `g_enabled` is read by it too.
std::atomic<bool> g_enabled{false};
std::uint32_t g_memory_type = 0;
LiveBlock* g_slots = nullptr;  // address 0: an empty slot (no allocation returns 0)
std::size_t g_slot_count = 0;  // a power of two
std::size_t g_count = 0;
bool g_overflowed = false;

std::size_t home(std::uint64_t address, std::size_t slots) {
  // Fibonacci hashing: block addresses differ in their middle bits.
  return static_cast<std::size_t>((address * 0x9E3779B97F4A7C15ULL) >> 20) & (slots - 1);
}

LiveBlock* map_slots(std::size_t slots) {
  void* memory = ::mmap(nullptr, slots * sizeof(LiveBlock), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return memory == MAP_FAILED ? nullptr : static_cast<LiveBlock*>(memory);
}

void put(LiveBlock* slots, std::size_t slot_count, const LiveBlock& block) {
  std::size_t i = home(block.address, slot_count);
  while (slots[i].address != 0 && slots[i].address != block.address) {
    i = (i + 1) & (slot_count - 1);
  }
  if (slots[i].address == 0) {
    ++g_count;
  }
  slots[i] = block;
}

// Doubles the table (at most half full, so that probes stay short); false when it cannot.
bool grow() {
  const std::size_t slots = g_slot_count == 0 ? kFirstSlots : 2 * g_slot_count;
  if (slots > 2 * kMaxLiveBlocks) {
    return false;
  }
  LiveBlock* fresh = map_slots(slots);
  if (fresh == nullptr) {
    return false;
  }
  LiveBlock* old = g_slots;
  const std::size_t old_count = g_slot_count;
  g_count = 0;
  for (std::size_t i = 0; i < old_count; ++i) {
    if (old[i].address != 0) {
      put(fresh, slots, old[i]);
    }
  }
  g_slots = fresh;
  g_slot_count = slots;
  if (old != nullptr) {
    ::munmap(old, old_count * sizeof(LiveBlock));
  }
  return true;
}

void insert(std::uint64_t address, std::uint64_t size) {
  if (2 * (g_count + 1) > g_slot_count && !grow()) {
    g_overflowed = true;
    return;
  }
  put(g_slots, g_slot_count, {address, size});
}

// Linear probing's deletion without tombstones: the entries after the hole that could not have
// been found past it move back into it.
void erase(std::uint64_t address) {
  if (g_slot_count == 0) {
    return;
  }
  const std::size_t mask = g_slot_count - 1;
  std::size_t i = home(address, g_slot_count);
  while (g_slots[i].address != address) {
    if (g_slots[i].address == 0) {
      return;
    }
    i = (i + 1) & mask;
  }
  std::size_t hole = i;
  for (std::size_t j = (i + 1) & mask; g_slots[j].address != 0; j = (j + 1) & mask) {
    const std::size_t wanted = home(g_slots[j].address, g_slot_count);
    // Moves back when its home is not in (hole, j] (cyclically).
    const bool stays = hole <= j ? (hole < wanted && wanted <= j) : (hole < wanted || wanted <= j);
    if (!stays) {
      g_slots[hole] = g_slots[j];
      hole = j;
    }
  }
  g_slots[hole] = {};
  --g_count;
}

}  // namespace

void live_blocks_enable(bool on) {
  g_enabled.store(on, std::memory_order_relaxed);
}

bool live_blocks_enabled() {
  return g_enabled.load(std::memory_order_relaxed);
}

void live_blocks_clear() {
  if (g_slots != nullptr) {
    std::memset(static_cast<void*>(g_slots), 0, g_slot_count * sizeof(LiveBlock));
  }
  g_count = 0;
  g_overflowed = false;
}

void live_blocks_resource(std::uint32_t id, compact::Text name) {
  if (name.size == sizeof kMemoryType - 1 && std::memcmp(name.data, kMemoryType, name.size) == 0) {
    g_memory_type = id;
  }
}

void live_blocks_apply_call(const compact::CallFields& call) {
  if (call.resource_type != g_memory_type || g_memory_type == 0 || call.resource_id == 0) {
    return;
  }
  if (call.kind == compact::kAllocationKind) {
    insert(call.resource_id, call.size);
  } else if (call.kind == compact::kReleaseKind) {
    erase(call.resource_id);
  }
}

bool live_blocks_overflowed() {
  return g_overflowed;
}

std::size_t live_blocks_count() {
  return g_count;
}

std::size_t live_blocks_copy(LiveBlock* out, std::size_t capacity) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < g_slot_count && n < capacity; ++i) {
    if (g_slots[i].address != 0) {
      out[n++] = g_slots[i];
    }
  }
  return n;
}

}  // namespace rtrace::tracer
