// librtrace-pool.so: the custom allocator API (include/rtrace/rtrace_api.h). A program, or a pool
// allocator of its own, reports the blocks it hands out and takes back; the module records them
// as allocations and releases of the resource type `pool`, apart from `memory`: a pool's blocks
// usually lie inside a block it got from malloc, at the same addresses (its first block at the
// address of its arena).
//
//  * rtrace_pool_alloc, rtrace_pool_free, rtrace_pool_realloc: calls named as the pool was at its
//    creation (rtrace_pool_create; "mempool" without a name), so that reports tell the pools
//    apart; realloc is the release of the old block then the allocation of the new one, as the
//    memory module's realloc.
//  * rtrace_pool_destroy: the release of every block still allocated in the pool, each recorded
//    as `rtrace_pool_destroy` (a pool that goes away takes its blocks with it).
//  * rtrace_block_alloc, rtrace_block_free, rtrace_block_realloc: blocks of an allocator without
//    pools (heaptrack's report calls, memcheck's malloc-like blocks), named as the functions.
// Every record's backtrace starts at the API function's caller: the pool allocator's own function
// (its allocation site), then whoever asked it for the block.
//
// The functions are called only by programs that use the API; when tracing is off they do no
// more than keep the pools' names.
#include <algorithm>

#include "tracer/api/module_sdk.h"
#include "tracer/modules/pool/pool_registry.h"

namespace rtrace::tracer {
namespace {

constinit std::uint32_t g_pool_resource = 1;

bool resolve_pool_functions() {
  return true;  // nothing to find: the module wraps no function
}

void register_pool_module() {
  rtrace_register_module("pool", 1, 0);
  g_pool_resource = rtrace_register_resource("pool", "custom allocator block in bytes", 0);
  rtrace_module_ready();
}

struct PoolModule;  // the module's tag for ModuleStart
constinit ModuleStart<PoolModule> g_pool_start{resolve_pool_functions, register_pool_module};

bool recording() {
  return g_pool_start.ready() && tracing_now<PoolModule>();
}

std::uintptr_t address(const void* pointer) {
  return reinterpret_cast<std::uintptr_t>(pointer);
}

// An allocation of `block` by `pool` (0: no pool), recorded under `name`.
void record_block(const char* name, std::uintptr_t pool, const void* block, std::size_t size,
                  const void* return_address) {
  OwnGuard<PoolModule> guard;
  record_allocation(g_pool_resource, name, size, address(block), return_address);
  remember_block(address(block), pool);
}

// The release of `block`, recorded under `name`.
void release_block(const char* name, std::uintptr_t block, const void* return_address) {
  OwnGuard<PoolModule> guard;
  forget_block(block);
  ReleaseRecorder release(g_pool_resource, name, block, return_address);
  release.commit();
}

// Releases the blocks still in `pool`, in address order.
void release_pool_blocks(std::uintptr_t pool, const void* return_address) {
  constexpr std::size_t kBatch = 1024;
  std::uintptr_t blocks[kBatch];
  std::size_t count = 0;
  while ((count = take_blocks(pool, blocks, kBatch)) != 0) {
    std::sort(blocks, blocks + count);
    for (std::size_t i = 0; i < count; ++i) {
      release_block("rtrace_pool_destroy", blocks[i], return_address);
    }
  }
}

}  // namespace
}  // namespace rtrace::tracer

using rtrace::tracer::address;
using rtrace::tracer::forget_pool;
using rtrace::tracer::pool_name;
using rtrace::tracer::record_block;
using rtrace::tracer::recording;
using rtrace::tracer::release_block;
using rtrace::tracer::release_pool_blocks;
using rtrace::tracer::remember_pool;

extern "C" {

RTRACE_EXPORT void rtrace_pool_create(const void* pool, const char* name) {
  remember_pool(address(pool), name);
}

RTRACE_EXPORT void rtrace_pool_destroy(const void* pool) {
  if (recording()) {
    release_pool_blocks(address(pool), __builtin_return_address(0));
  }
  forget_pool(address(pool));
}

RTRACE_EXPORT void rtrace_pool_alloc(const void* pool, const void* block, std::size_t size) {
  if (block != nullptr && recording()) {
    record_block(pool_name(address(pool)), address(pool), block, size, __builtin_return_address(0));
  }
}

RTRACE_EXPORT void rtrace_pool_free(const void* pool, const void* block) {
  if (block != nullptr && recording()) {
    release_block(pool_name(address(pool)), address(block), __builtin_return_address(0));
  }
}

RTRACE_EXPORT void rtrace_pool_realloc(const void* pool, const void* old, const void* block,
                                       std::size_t size) {
  if (!recording()) {
    return;
  }
  const char* name = pool_name(address(pool));
  if (old != nullptr) {
    release_block(name, address(old), __builtin_return_address(0));
  }
  if (block != nullptr) {
    record_block(name, address(pool), block, size, __builtin_return_address(0));
  }
}

RTRACE_EXPORT void rtrace_block_alloc(const void* block, std::size_t size) {
  if (block != nullptr && recording()) {
    record_block("rtrace_block_alloc", 0, block, size, __builtin_return_address(0));
  }
}

RTRACE_EXPORT void rtrace_block_free(const void* block) {
  if (block != nullptr && recording()) {
    release_block("rtrace_block_free", address(block), __builtin_return_address(0));
  }
}

RTRACE_EXPORT void rtrace_block_realloc(const void* old, const void* block, std::size_t size) {
  if (!recording()) {
    return;
  }
  if (old != nullptr) {
    release_block("rtrace_block_realloc", address(old), __builtin_return_address(0));
  }
  if (block != nullptr) {
    record_block("rtrace_block_realloc", 0, block, size, __builtin_return_address(0));
  }
}
}

// The session registers the preloaded modules in LD_PRELOAD order (module_order.h), so that the
// resource type ids follow the order of -e.
extern "C" RTRACE_EXPORT void rtrace_module_register() {
  rtrace::tracer::g_pool_start.register_in_order();
}

namespace {

// Registers the module at load: the program calls the API only after it started.
__attribute__((constructor)) void pool_module_init() {
  rtrace::tracer::g_pool_start.finish_registration();
}

}  // namespace
