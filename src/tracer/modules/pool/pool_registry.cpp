#include "tracer/modules/pool/pool_registry.h"

#include <cstring>

#include "tracer/api/module_lock.h"
#include "tracer/core/fixed_table.h"

namespace rtrace::tracer {
namespace {

constinit ModuleLock g_pool_lock;

// The live pools, by handle, with their interned names.
constinit FixedTable<const char*, 4096> g_pools;
// The live blocks recorded through the API, by address, with their pool's handle.
constinit FixedTable<std::uintptr_t, 262144> g_blocks;

// The pool names, each stored once and never overwritten: a record names its call by address
// until the trace is written, after its pool may have been destroyed and its slot reused.
constexpr std::size_t kNameBytes = 65536;
constexpr std::size_t kNameLength = 127;  // longer names are cut
constinit char g_names[kNameBytes] = {};
constinit std::size_t g_names_used = 0;

// `name` stored in g_names (an equal name stored before is reused); kDefaultPoolName when there
// is no room left.
const char* intern(const char* name) {
  const std::size_t length = strnlen(name, kNameLength);
  for (std::size_t at = 0; at < g_names_used; at += std::strlen(g_names + at) + 1) {
    if (std::strlen(g_names + at) == length && std::memcmp(g_names + at, name, length) == 0) {
      return g_names + at;
    }
  }
  if (length == 0 || g_names_used + length + 1 > kNameBytes) {
    return kDefaultPoolName;
  }
  char* stored = g_names + g_names_used;
  std::memcpy(stored, name, length);
  stored[length] = '\0';
  g_names_used += length + 1;
  return stored;
}

[[gnu::constructor]] void keep_pool_lock_across_fork() {
  keep_lock_across_fork<g_pool_lock>();
}

}  // namespace

void remember_pool(std::uintptr_t pool, const char* name) {
  LockScope scope(g_pool_lock);
  g_pools.put(pool, name == nullptr ? kDefaultPoolName : intern(name));
}

const char* pool_name(std::uintptr_t pool) {
  LockScope scope(g_pool_lock);
  const char* const* name = g_pools.find(pool);
  return name == nullptr ? kDefaultPoolName : *name;
}

void forget_pool(std::uintptr_t pool) {
  LockScope scope(g_pool_lock);
  g_pools.erase(pool);
}

void remember_block(std::uintptr_t block, std::uintptr_t pool) {
  LockScope scope(g_pool_lock);
  g_blocks.put(block, pool);
}

void forget_block(std::uintptr_t block) {
  LockScope scope(g_pool_lock);
  g_blocks.erase(block);
}

std::size_t take_blocks(std::uintptr_t pool, std::uintptr_t* blocks, std::size_t capacity) {
  LockScope scope(g_pool_lock);
  std::size_t count = 0;
  g_blocks.for_each([&](std::uint64_t block, std::uintptr_t owner) {
    if (owner == pool && count < capacity) {
      blocks[count++] = block;
    }
  });
  for (std::size_t i = 0; i < count; ++i) {
    g_blocks.erase(blocks[i]);
  }
  return count;
}

}  // namespace rtrace::tracer
