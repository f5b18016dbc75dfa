#include "tracer/modules/memory/bootstrap_heap.h"

#include <atomic>
#include <cstdint>
#include <cstring>

namespace rtrace::tracer {
namespace {

constexpr std::size_t kHeapSize = std::size_t{256} * 1024;
constexpr std::size_t kHeader = 16;  // the block's size, kept in front of it

alignas(64) char g_heap[kHeapSize];
std::atomic<std::size_t> g_used{0};

}  // namespace

void* bootstrap_allocate(std::size_t size, std::size_t alignment) {
  if (alignment < kHeader) {
    alignment = kHeader;
  }
  if ((alignment & (alignment - 1)) != 0 || size > kHeapSize || alignment > kHeapSize / 4) {
    return nullptr;
  }
  std::size_t used = g_used.load(std::memory_order_relaxed);
  std::size_t start = 0;
  do {
    start = (used + kHeader + alignment - 1) & ~(alignment - 1);
    if (start + size > kHeapSize) {
      return nullptr;
    }
  } while (!g_used.compare_exchange_weak(used, start + size, std::memory_order_relaxed));
  char* block = g_heap + start;
  std::memcpy(block - kHeader, &size, sizeof size);
  return block;
}

bool bootstrap_owns(const void* pointer) {
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  const auto begin = reinterpret_cast<std::uintptr_t>(g_heap);
  return address >= begin && address < begin + kHeapSize;
}

std::size_t bootstrap_size(const void* pointer) {
  std::size_t size = 0;
  std::memcpy(&size, static_cast<const char*>(pointer) - kHeader, sizeof size);
  return size;
}

}  // namespace rtrace::tracer
