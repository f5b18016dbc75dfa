#include "tracer/output/compact_tables.h"

#include <sys/mman.h>

#include <cstring>

namespace rtrace::tracer {
namespace {

// Open addressing, linear probing. A slot belongs to the current table when its generation is
// the table's: clearing a table is one increment, not a pass over its memory.
struct StackSlot {
  std::uint64_t hash;
  std::uint32_t generation;
  std::uint32_t first;  // in the frame pool
  std::uint32_t count;
  std::uint32_t id;
};

struct NameSlot {
  std::uint64_t hash;
  std::uint64_t head;  // the first and last 8 bytes (NameKey): the whole of a short name
  std::uint64_t tail;
  std::uint32_t generation;
  std::uint32_t offset;  // in the name pool
  std::uint32_t length;
  std::uint32_t id;
};

// Where a stack's frames are in the pool.
struct StackFrames {
  std::uint32_t first;
  std::uint32_t count;
};

// A run of outer frames of a written stack (compact_encoder.h, shared_outer_frames): its key
// and the first stack that had it. 16 bytes: four to a cache line, one line a lookup.
struct OuterSlot {
  std::uint64_t key;
  std::uint32_t generation;  // the stack table's
  std::uint32_t stack;
};

struct ResourceSlot {
  std::uint64_t resource_id;
  std::uint64_t value;  // the encoder's
  std::uint32_t generation;
};

// 1 Mi slots (32 MiB) and 8 Mi frames (64 MiB) of address space; only what is used is touched.
constexpr std::size_t kStackSlots = std::size_t{1} << 20;
constexpr std::size_t kMaxStacks = kStackSlots / 4 * 3;
constexpr std::size_t kPoolFrames = std::size_t{1} << 23;
// Twice the stacks' slots: a stack adds the outer runs no stack had before, about two for each
// stack of a program's call tree, all of them for the first; a full table keeps what it has
// (what comes after shares fewer frames: the trace grows, stays exact).
constexpr std::size_t kOuterSlots = kStackSlots * 2;
constexpr std::size_t kMaxOuters = kOuterSlots / 4 * 3;
constexpr std::size_t kNameSlots = std::size_t{1} << 13;
constexpr std::size_t kMaxNames = kNameSlots / 4 * 3;
constexpr std::size_t kNamePool = std::size_t{1} << 20;
// 1 Mi slots (24 MiB of address space) for the resource ids of the calls: live blocks and
// recently released ones (compact_encoder.h's references). 4 Mi cost cc1plus's trace a second
// of CPU in cache misses for the same size (bench/run-compile.sh); a full table is only forgotten.
constexpr std::size_t kResourceSlots = std::size_t{1} << 20;
constexpr std::size_t kMaxResources = kResourceSlots / 4 * 3;

struct StackTable {
  StackSlot* slots = nullptr;
  std::uint64_t* pool = nullptr;
  StackFrames* frames = nullptr;  // [id - 1]: the stack's frames in the pool (one load, not two)
  OuterSlot* outers = nullptr;
  std::uint32_t outer_count = 0;
  std::uint32_t generation = 1;
  std::uint32_t count = 0;
  std::size_t pool_used = 0;
};

struct NameTable {
  NameSlot* slots = nullptr;
  char* pool = nullptr;
  std::uint32_t generation = 1;
  std::uint32_t count = 0;
  std::size_t pool_used = 0;
};

struct ResourceTable {
  ResourceSlot* slots = nullptr;
  std::uint32_t generation = 1;
  std::uint32_t count = 0;
};

// The names looked up last, by length (a few bits of it): a program's calls name the same few
// functions over and over, and the table's lookup (hash, then slot) was a chain of dependent
// loads, the writer's largest single cost per call after zstd (5 % of a recording's samples).
struct RecentName {
  std::uint64_t head;
  std::uint64_t tail;
  std::uint64_t id;
  std::uint32_t length;
  std::uint32_t generation;  // the table's when it was found; 0: empty
};
constexpr std::size_t kRecentLengths = 8;
constexpr std::size_t kRecentWays = 2;
constexpr std::size_t kRecentNames = kRecentLengths * kRecentWays;
static_assert(kRecentWays == 2);  // function_id keeps the last found in way 0, the one before in 1

// The slot where a stack was found last, by its first frames: a program's calls repeat a few
// stacks, and a stack's hash (a multiplication per frame, one after the other) and probe were
// most of the lookup. A guess only: the slot's stack is compared whole before it is used.
constexpr std::size_t kRecentStacks = 64;

StackTable g_stacks;
NameTable g_names;
RecentName g_recent_names[kRecentNames];
std::uint32_t g_recent_stacks[kRecentStacks];
ResourceTable g_resources;

void* map_zeroed(std::size_t bytes) {
  void* memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return memory == MAP_FAILED ? nullptr : memory;
}

bool stacks_ready() {
  if (g_stacks.slots == nullptr) {
    g_stacks.slots = static_cast<StackSlot*>(map_zeroed(kStackSlots * sizeof(StackSlot)));
    g_stacks.pool = static_cast<std::uint64_t*>(map_zeroed(kPoolFrames * sizeof(std::uint64_t)));
    g_stacks.frames = static_cast<StackFrames*>(map_zeroed(kMaxStacks * sizeof(StackFrames)));
    g_stacks.outers = static_cast<OuterSlot*>(map_zeroed(kOuterSlots * sizeof(OuterSlot)));
  }
  return g_stacks.slots != nullptr && g_stacks.pool != nullptr && g_stacks.frames != nullptr &&
         g_stacks.outers != nullptr;
}

bool names_ready() {
  if (g_names.slots == nullptr) {
    g_names.slots = static_cast<NameSlot*>(map_zeroed(kNameSlots * sizeof(NameSlot)));
    g_names.pool = static_cast<char*>(map_zeroed(kNamePool));
  }
  return g_names.slots != nullptr && g_names.pool != nullptr;
}

std::uint64_t mix(std::uint64_t hash, std::uint64_t value) {
  hash = (hash ^ value) * 0x9E3779B97F4A7C15ULL;
  return hash ^ (hash >> 29);
}

std::uint64_t hash_frames(const std::uint64_t* frames, std::uint32_t count) {
  std::uint64_t hash = mix(0x243F6A8885A308D3ULL, count);
  for (std::uint32_t i = 0; i < count; ++i) {
    hash = mix(hash, frames[i]);
  }
  return hash;
}

// Up to 8 bytes as a number, with fixed-size loads (a variable-length memcpy into a local stalls
// the load that follows it: store forwarding fails): 4 to 8 bytes as two overlapping 4-byte
// loads, which with the length still tell every such string apart.
std::uint64_t load_bytes(const char* p, std::size_t n) {
  std::uint64_t value = 0;
  if (n == sizeof value) {
    std::memcpy(&value, p, sizeof value);
    return value;
  }
  if (n >= 4) {
    std::uint32_t low = 0;
    std::uint32_t high = 0;
    std::memcpy(&low, p, sizeof low);
    std::memcpy(&high, p + n - 4, sizeof high);
    return std::uint64_t{low} | std::uint64_t{high} << 32;
  }
  for (std::size_t i = 0; i < n; ++i) {
    value |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  }
  return value;
}

// The first and last 8 bytes of a name (all of it when shorter): with the length they are the
// whole name up to 16 bytes, so that short names (most traced functions') are compared without
// memcmp.
struct NameKey {
  std::uint64_t head = 0;
  std::uint64_t tail = 0;
};
constexpr std::size_t kWholeKey = 2 * sizeof(std::uint64_t);

NameKey name_key(const char* name, std::size_t length) {
  const std::size_t part = length < sizeof(std::uint64_t) ? length : sizeof(std::uint64_t);
  return {load_bytes(name, part), load_bytes(name + length - part, part)};
}

// The length and the key: the names of one program's traced functions differ there, and the
// comparison that follows a match checks the rest. (Hashing every byte cost as much as the rest
// of the transcoding of a call.)
std::uint64_t hash_name(std::size_t length, NameKey key) {
  return mix(mix(length, key.head), key.tail);
}

}  // namespace

// Not a mixing hash: neighbouring blocks of one heap get neighbouring slots, so the lookups of a
// churning program (which frees in the order it allocated) stay in a few cache lines and pages
// instead of one miss each; each 64 MiB region of the address space (a glibc arena: one per
// thread) starts at its own scattered offset. XOR-ing in the region's number instead put the
// arenas of 16 threads onto the same few slots (their blocks lie at the same small offsets): the
// probes grew so long that the writer spent 96 % of a 16-thread program's tracing in this lookup
// and fell behind (a trace cut short at exit). The low four bits, zero in a glibc block's
// address, choose one of 16 equal parts of the table: ids that count up one by one (descriptors,
// ticket-like ids) or blocks 8 bytes apart would otherwise share a home 16 or 2 at a time, and
// their probes grow with the table (quadratic: a 4-thread test of 240,000 such ids spent half its
// time here); so each of them has a home of its own until a part fills.
std::size_t compact_resource_home(std::uint64_t resource_id) {
  return static_cast<std::size_t>((resource_id >> 4) + (resource_id >> 26) * 0x9E3779B97F4A7C15ULL +
                                  (resource_id & 15) * (kResourceSlots / 16)) &
         (kResourceSlots - 1);
}

namespace {

bool resources_ready() {
  if (g_resources.slots == nullptr) {
    g_resources.slots =
        static_cast<ResourceSlot*>(map_zeroed(kResourceSlots * sizeof(ResourceSlot)));
  }
  return g_resources.slots != nullptr;
}

// The table's id of a name (names_ready()), a new one when it is not there; 0 when full.
std::uint64_t look_up_name(const char* name, std::size_t length, NameKey key, bool& fresh) {
  const std::uint64_t hash = hash_name(length, key);
  for (std::size_t i = hash & (kNameSlots - 1);; i = (i + 1) & (kNameSlots - 1)) {
    NameSlot& slot = g_names.slots[i];
    if (slot.generation != g_names.generation) {
      if (g_names.count == kMaxNames || kNamePool - g_names.pool_used < length) {
        return 0;
      }
      if (length > 0) {
        std::memcpy(g_names.pool + g_names.pool_used, name, length);
      }
      slot = NameSlot{hash,
                      key.head,
                      key.tail,
                      g_names.generation,
                      static_cast<std::uint32_t>(g_names.pool_used),
                      static_cast<std::uint32_t>(length),
                      ++g_names.count};
      g_names.pool_used += length;
      fresh = true;
      return slot.id;
    }
    if (slot.hash == hash && slot.length == length && slot.head == key.head &&
        slot.tail == key.tail &&
        (length <= kWholeKey || std::memcmp(g_names.pool + slot.offset, name, length) == 0)) {
      return slot.id;
    }
  }
}

}  // namespace

std::uint64_t* CompactTables::resource_slot(std::uint64_t resource_id) {
  if (!resources_ready()) {
    return nullptr;
  }
  for (std::size_t i = compact_resource_home(resource_id);; i = (i + 1) & (kResourceSlots - 1)) {
    ResourceSlot& slot = g_resources.slots[i];
    if (slot.generation != g_resources.generation) {
      if (g_resources.count == kMaxResources) {
        clear_resources();
        return resource_slot(resource_id);
      }
      ++g_resources.count;
      slot = ResourceSlot{resource_id, 0, g_resources.generation};
      return &slot.value;
    }
    if (slot.resource_id == resource_id) {
      return &slot.value;
    }
  }
}

void CompactTables::clear_resources() {
  ++g_resources.generation;
  g_resources.count = 0;
}

namespace {

// Where g_recent_stacks keeps a stack of `count` frames (at least one) starting so.
std::size_t recent_stack_home(const std::uint64_t* frames, std::uint32_t count) {
  const std::uint64_t second = count > 1 ? frames[1] : 0;
  return static_cast<std::size_t>(mix(mix(count, frames[0]), second) >> 58) & (kRecentStacks - 1);
}

// Whether the slot at `index` holds the stack of the current table.
bool slot_holds(std::size_t index, const std::uint64_t* frames, std::uint32_t count) {
  const StackSlot& slot = g_stacks.slots[index];
  return slot.generation == g_stacks.generation && slot.count == count &&
         std::memcmp(g_stacks.pool + slot.first, frames, count * sizeof *frames) == 0;
}

// The index of the slot that holds the stack (a new one when it is not there); kStackSlots when
// the table is full.
std::size_t look_up_stack(const std::uint64_t* frames, std::uint32_t count, bool& fresh) {
  const std::uint64_t hash = hash_frames(frames, count);
  for (std::size_t i = hash & (kStackSlots - 1);; i = (i + 1) & (kStackSlots - 1)) {
    StackSlot& slot = g_stacks.slots[i];
    if (slot.generation != g_stacks.generation) {
      if (g_stacks.count == kMaxStacks || kPoolFrames - g_stacks.pool_used < count) {
        return kStackSlots;
      }
      std::memcpy(g_stacks.pool + g_stacks.pool_used, frames, count * sizeof *frames);
      slot = StackSlot{hash, g_stacks.generation, static_cast<std::uint32_t>(g_stacks.pool_used),
                       count, ++g_stacks.count};
      g_stacks.frames[slot.id - 1] = {slot.first, count};
      g_stacks.pool_used += count;
      fresh = true;
      return i;
    }
    if (slot.hash == hash && slot.count == count &&
        std::memcmp(g_stacks.pool + slot.first, frames, count * sizeof *frames) == 0) {
      return i;
    }
  }
}

}  // namespace

std::uint64_t CompactTables::stack_id(const std::uint64_t* frames, std::uint32_t count,
                                      bool& fresh) {
  if (!stacks_ready()) {
    return 0;
  }
  std::uint32_t unused = 0;
  std::uint32_t& recent = count > 0 ? g_recent_stacks[recent_stack_home(frames, count)] : unused;
  if (count > 0 && slot_holds(recent, frames, count)) {
    return g_stacks.slots[recent].id;
  }
  const std::size_t index = look_up_stack(frames, count, fresh);
  if (index == kStackSlots) {
    return 0;
  }
  recent = static_cast<std::uint32_t>(index);
  return g_stacks.slots[index].id;
}

namespace {

// The outer-frames slot of `key`: the one holding it, or the empty one where it would go.
OuterSlot& outer_slot(std::uint64_t key) {
  for (std::size_t i = key & (kOuterSlots - 1);; i = (i + 1) & (kOuterSlots - 1)) {
    OuterSlot& slot = g_stacks.outers[i];
    if (slot.generation != g_stacks.generation || slot.key == key) {
      return slot;
    }
  }
}

}  // namespace

// Only ever asked after stack_id (the stacks' memory is mapped).
std::uint64_t CompactTables::stack_with_outer(std::uint64_t key) {
  const OuterSlot& slot = outer_slot(key);
  return slot.generation == g_stacks.generation ? slot.stack : 0;
}

void CompactTables::add_outer(std::uint64_t key, std::uint64_t stack) {
  OuterSlot& slot = outer_slot(key);
  if (slot.generation != g_stacks.generation && g_stacks.outer_count < kMaxOuters) {
    slot = OuterSlot{key, g_stacks.generation, static_cast<std::uint32_t>(stack)};
    ++g_stacks.outer_count;
  }
}

const std::uint64_t* CompactTables::stack_frames(std::uint64_t stack, std::uint32_t& count) {
  if (stack == 0 || stack > g_stacks.count) {
    return nullptr;
  }
  const StackFrames& frames = g_stacks.frames[stack - 1];
  count = frames.count;
  return g_stacks.pool + frames.first;
}

namespace {

// function_id's way when the name is neither of the two of its length looked up last: out of
// line, so that the common way needs no registers saved. Two per length, because names of one
// length come in turn (a memory transfer's memcpy and memset).
[[gnu::noinline]] std::uint64_t look_up_and_remember(const char* name, std::size_t length,
                                                     NameKey key, RecentName* recent, bool& fresh) {
  if (!names_ready()) {
    return 0;
  }
  const std::uint64_t id = look_up_name(name, length, key, fresh);
  if (id != 0 && length <= kWholeKey) {
    recent[1] = recent[0];
    recent[0] =
        RecentName{key.head, key.tail, id, static_cast<std::uint32_t>(length), g_names.generation};
  }
  return id;
}

}  // namespace

std::uint64_t CompactTables::function_id(const char* name, std::size_t length, bool& fresh) {
  const NameKey key = name_key(name, length);
  RecentName* recent = g_recent_names + (length % kRecentLengths) * kRecentWays;
  // A recent name's generation is the table's only once the table is mapped.
  for (std::size_t way = 0; way < kRecentWays; ++way) {
    if (recent[way].generation == g_names.generation && recent[way].length == length &&
        recent[way].head == key.head && recent[way].tail == key.tail && length <= kWholeKey) {
      return recent[way].id;
    }
  }
  return look_up_and_remember(name, length, key, recent, fresh);
}

void CompactTables::clear(compact::Table table) {
  if (table == compact::Table::Stacks) {
    ++g_stacks.generation;
    g_stacks.count = 0;
    g_stacks.pool_used = 0;
    g_stacks.outer_count = 0;
  } else {
    ++g_names.generation;
    g_names.count = 0;
    g_names.pool_used = 0;
  }
}

}  // namespace rtrace::tracer
