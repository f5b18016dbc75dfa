#include "tracer/session/leak_check.h"

#include <dlfcn.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>

#include "protocol/compact_encoder.h"
#include "tracer/core/decimal.h"
#include "tracer/output/compact_transcoder.h"
#include "tracer/output/live_blocks.h"
#include "tracer/session/memory_regions.h"
#include "tracer/session/thread_stop.h"

namespace rtrace::tracer {
namespace {

constexpr std::size_t kMaxMappings = 65536;
constexpr std::size_t kMaxSegments = 4096;
constexpr long kStopPatienceMs = 1000;
// glibc's thread descriptor (struct pthread) beside the thread pointer, when libc does not say.
constexpr std::size_t kDefaultThreadDescriptor = 2304;

enum State : std::uint8_t { Unreached = 0, Possible = 1, Reachable = 2, Indirect = 3 };
constexpr std::uint8_t kStateMask = 0x7f;
constexpr std::uint8_t kUnreadable = 0x80;  // its contents are not scanned

AddressRange g_mappings[kMaxMappings];
std::size_t g_mapping_count = 0;
AddressRange g_segments[kMaxSegments];
compact::LeakKindEntry g_entries[compact::kMaxLeakKindEntries];

template <typename T>
T* map_array(std::size_t count) {
  void* memory = ::mmap(nullptr, count * sizeof(T) + 1, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return memory == MAP_FAILED ? nullptr : static_cast<T*>(memory);
}

template <typename T>
void unmap_array(T* array, std::size_t count) {
  if (array != nullptr) {
    ::munmap(array, count * sizeof(T) + 1);
  }
}

class Marker {
 public:
  Marker(LiveBlock* blocks, std::uint8_t* states, std::uint32_t* stack, std::size_t count)
      : blocks_(blocks), states_(states), stack_(stack), count_(count) {
    if (count_ > 0) {
      lowest_ = blocks_[0].address;
      highest_ = blocks_[count_ - 1].address + blocks_[count_ - 1].size + 1;
    }
  }

  // A root's words: each pointer to a block's start makes it reachable, into it possibly lost.
  void scan_root(std::uintptr_t begin, std::uintptr_t end) {
    for_readable(begin, end, [this](std::uintptr_t word) { reach(word, true); });
    drain_reachable();
  }

  // A thread's root [begin, end) but for the tracer's static TLS in it (`thread_pointer` its
  // thread's): the tracer's per-thread state (its ring, its guards, the call being recorded,
  // whose resource id is a block's address) is no reference of the program's.
  void scan_thread_root(std::uintptr_t begin, std::uintptr_t end, std::uintptr_t thread_pointer,
                        const ModuleRoots& modules) {
    for (std::size_t i = 0; i < modules.tracer_tls_count && begin < end; ++i) {
      const std::uintptr_t skip_begin =
          thread_pointer + static_cast<std::uintptr_t>(modules.tracer_tls[i].offset);
      const std::uintptr_t skip_end = skip_begin + modules.tracer_tls[i].size;
      if (skip_end <= begin || skip_begin >= end) {
        continue;
      }
      if (skip_begin > begin) {
        scan_thread_root(begin, skip_begin, thread_pointer, modules);
      }
      begin = skip_end;
    }
    if (begin < end) {
      scan_root(begin, end);
    }
  }

  void scan_words(const std::uintptr_t* words, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      reach(words[i], true);
    }
    drain_reachable();
  }

  // What no root reaches: every unreached block, lowest first, leads a "clique" of the
  // unreached blocks it reaches (start or interior pointers alike), which are indirectly lost.
  void find_indirect() {
    for (std::size_t leader = 0; leader < count_; ++leader) {
      if ((states_[leader] & kStateMask) != Unreached) {
        continue;
      }
      push(leader);
      while (depth_ > 0) {
        const std::size_t block = stack_[--depth_];
        for_block(block, [this, leader](std::uintptr_t word) {
          const long target = find(word);
          if (target >= 0 && static_cast<std::size_t>(target) != leader &&
              (states_[target] & kStateMask) == Unreached) {
            set_state(static_cast<std::size_t>(target), Indirect);
            push(static_cast<std::size_t>(target));
          }
        });
      }
    }
  }

  std::uint8_t kind(std::size_t block) const {
    switch (states_[block] & kStateMask) {
      case Reachable:
        return compact::kLeakReachable;
      case Possible:
        return compact::kLeakPossible;
      case Indirect:
        return compact::kLeakIndirect;
      default:
        return compact::kLeakDefinite;
    }
  }

 private:
  // The block `word` points into (its start, or for a block of size 0 only its start); -1: none.
  long find(std::uintptr_t word) const {
    if (word < lowest_ || word >= highest_) {
      return -1;
    }
    const LiveBlock* after = std::upper_bound(
        blocks_, blocks_ + count_, word,
        [](std::uintptr_t value, const LiveBlock& b) { return value < b.address; });
    if (after == blocks_) {
      return -1;
    }
    const LiveBlock& block = after[-1];
    return word == block.address || word - block.address < block.size ? after - 1 - blocks_ : -1;
  }

  void reach(std::uintptr_t word, bool prior_definite) {
    const long found = find(word);
    if (found < 0) {
      return;
    }
    const auto block = static_cast<std::size_t>(found);
    const std::uint8_t state = states_[block] & kStateMask;
    if (word == blocks_[block].address && prior_definite) {
      if (state != Reachable) {
        set_state(block, Reachable);
        push(block);
      }
    } else if (state == Unreached) {
      set_state(block, Possible);
      push(block);
    }
  }

  // A block is pushed at most twice (unreached to possibly lost to reachable): the stack holds
  // 2 * count entries.
  void drain_reachable() {
    while (depth_ > 0) {
      const std::size_t block = stack_[--depth_];
      const bool definite = (states_[block] & kStateMask) == Reachable;
      for_block(block, [this, definite](std::uintptr_t word) { reach(word, definite); });
    }
  }

  void set_state(std::size_t block, State state) {
    states_[block] = static_cast<std::uint8_t>((states_[block] & kUnreadable) | state);
  }

  void push(std::size_t block) { stack_[depth_++] = static_cast<std::uint32_t>(block); }

  template <typename Visit>
  void for_block(std::size_t block, Visit visit) {
    if ((states_[block] & kUnreadable) == 0) {
      words(blocks_[block].address, blocks_[block].address + blocks_[block].size, visit);
    }
  }

  // The aligned words of [begin, end) that lie in readable mappings.
  template <typename Visit>
  static void for_readable(std::uintptr_t begin, std::uintptr_t end, Visit visit) {
    while (begin < end) {
      const AddressRange* mapping = mapping_of(g_mappings, g_mapping_count, begin);
      if (mapping == nullptr) {
        const AddressRange* next = std::upper_bound(
            g_mappings, g_mappings + g_mapping_count, begin,
            [](std::uintptr_t value, const AddressRange& r) { return value < r.begin; });
        if (next == g_mappings + g_mapping_count) {
          return;
        }
        begin = next->begin;
        continue;
      }
      const std::uintptr_t stop = mapping->end < end ? mapping->end : end;
      words(begin, stop, visit);
      begin = stop;
    }
  }

  template <typename Visit>
  static void words(std::uintptr_t begin, std::uintptr_t end, Visit visit) {
    constexpr std::uintptr_t kWord = sizeof(std::uintptr_t);
    for (std::uintptr_t at = (begin + kWord - 1) & ~(kWord - 1); at + kWord <= end; at += kWord) {
      // NOLINTNEXTLINE(performance-no-int-to-ptr): the scan reads memory by its addresses
      visit(*reinterpret_cast<const std::uintptr_t*>(at));
    }
  }

  LiveBlock* blocks_;
  std::uint8_t* states_;
  std::uint32_t* stack_;
  std::size_t count_;
  std::size_t depth_ = 0;
  std::uintptr_t lowest_ = 0;
  std::uintptr_t highest_ = 0;
};

void note(const char* what, std::uint64_t number) {
  char text[160];
  char* end = text;
  for (const char* c = what; *c != '\0'; ++c) {
    *end++ = *c;
  }
  end = write_decimal(end, number);
  *end = '\0';
  compact_note(text);
}

std::size_t thread_descriptor_size() {
  // Looked up at each (rare) check: a function-local static would need the C++ runtime's guard.
  const auto* size =
      static_cast<const unsigned int*>(::dlsym(RTLD_DEFAULT, "_thread_db_sizeof_pthread"));
  return size != nullptr ? *size : kDefaultThreadDescriptor;
}

// A thread's static TLS and descriptor, around its thread pointer (x86-64: the TLS blocks
// below it, the descriptor above; AArch64: the descriptor below, the TLS blocks above).
void scan_thread_storage(Marker& marker, std::uintptr_t thread_pointer, std::size_t tls_size,
                         const ModuleRoots& modules) {
  const std::size_t descriptor = thread_descriptor_size();
#if defined(__aarch64__)
  marker.scan_thread_root(thread_pointer - descriptor, thread_pointer + tls_size, thread_pointer,
                          modules);
#else
  marker.scan_thread_root(thread_pointer - tls_size, thread_pointer + descriptor, thread_pointer,
                          modules);
#endif
}

// A stack from `stack_pointer` to the end of its mapping (a thread's static TLS may lie there:
// the tracer's is left out).
void scan_stack(Marker& marker, std::uintptr_t stack_pointer, std::uintptr_t thread_pointer,
                const ModuleRoots& modules) {
  const AddressRange* mapping = mapping_of(g_mappings, g_mapping_count, stack_pointer);
  if (mapping != nullptr) {
    marker.scan_thread_root(stack_pointer, mapping->end, thread_pointer, modules);
  }
}

void mark_unreadable(const LiveBlock* blocks, std::uint8_t* states, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const AddressRange* mapping = mapping_of(g_mappings, g_mapping_count, blocks[i].address);
    if (mapping == nullptr || blocks[i].size > mapping->end - blocks[i].address) {
      states[i] = kUnreadable;
    }
  }
}

void write_kinds(std::uint32_t pid, const Marker& marker, const LiveBlock* blocks,
                 std::size_t count) {
  std::uint32_t filled = 0;
  for (std::size_t i = 0; i < count; ++i) {
    g_entries[filled++] = {blocks[i].address, marker.kind(i)};
    if (filled == compact::kMaxLeakKindEntries) {
      compact_leak_kinds(pid, g_entries, filled);
      filled = 0;
    }
  }
  if (filled > 0 || count == 0) {
    compact_leak_kinds(pid, g_entries, filled);
  }
}

// Roots and classification; the other threads are stopped.
void classify(std::uint32_t pid, LiveBlock* blocks, std::size_t count, std::uintptr_t own_stack,
              const ModuleRoots& modules, std::size_t tls_size, const StopResult& stop) {
  auto* states = map_array<std::uint8_t>(count);
  auto* stack = map_array<std::uint32_t>(2 * count + 1);
  if (states == nullptr || stack == nullptr) {
    note("leak check not made: no memory for its tables of blocks: ", count);
  } else {
    mark_unreadable(blocks, states, count);
    Marker marker(blocks, states, stack, count);
    for (std::size_t i = 0; i < modules.segment_count; ++i) {
      marker.scan_root(g_segments[i].begin, g_segments[i].end);
    }
    if (own_stack != 0) {
      const auto self = reinterpret_cast<std::uintptr_t>(__builtin_thread_pointer());
      scan_stack(marker, own_stack, self, modules);
      scan_thread_storage(marker, self, tls_size, modules);
    }
    for (std::size_t i = 0; i < stop.count; ++i) {
      const StoppedThread& thread = stop.threads[i];
      if (thread.stopped) {
        marker.scan_words(thread.registers, thread.register_count);
        scan_stack(marker, thread.stack_pointer, thread.thread_pointer, modules);
        scan_thread_storage(marker, thread.thread_pointer, tls_size, modules);
      }
    }
    marker.find_indirect();
    write_kinds(pid, marker, blocks, count);
    if (stop.missed > 0) {
      note("leak check: threads that did not stop (their stacks were not scanned): ", stop.missed);
    }
  }
  unmap_array(states, count);
  unmap_array(stack, 2 * count + 1);
}

}  // namespace

void leak_check_write(std::uint32_t pid, bool own_stack) {
  // The callee-saved registers go onto this frame, which the scan of the stack starts in.
  __builtin_unwind_init();
  volatile char here = 0;
  const std::uintptr_t stack_pointer =
      own_stack ? reinterpret_cast<std::uintptr_t>(&here) & ~std::uintptr_t{7} : 0;
  if (!live_blocks_enabled()) {
    return;
  }
  if (live_blocks_overflowed()) {
    note("leak check not made: more blocks live than it keeps: ", kMaxLiveBlocks);
    return;
  }
  const std::size_t count = live_blocks_count();
  auto* blocks = map_array<LiveBlock>(count);
  if (blocks == nullptr) {
    note("leak check not made: no memory for its tables of blocks: ", count);
    return;
  }
  const std::size_t copied = live_blocks_copy(blocks, count);
  std::sort(blocks, blocks + copied,
            [](const LiveBlock& a, const LiveBlock& b) { return a.address < b.address; });
  // What takes the dynamic linker's lock comes before the other threads stop (one of them may
  // hold it).
  const ModuleRoots modules = module_roots(g_segments, kMaxSegments);
  const std::size_t tls_size = static_tls_size();
  thread_descriptor_size();
  const StopResult stop = stop_other_threads(kStopPatienceMs);
  g_mapping_count = read_readable_mappings(g_mappings, kMaxMappings);
  classify(pid, blocks, copied, stack_pointer, modules, tls_size, stop);
  resume_threads();
  unmap_array(blocks, count);
}

}  // namespace rtrace::tracer
