#include "tracer/unwind/stack_walker.h"

#include <atomic>

#include "tracer/unwind/cfi_rules.h"

namespace rtrace::tracer {
namespace {

// ---- the table of known rules -------------------------------------------------------------------
//
// Open addressing, written once per slot: a thread that computed a rule claims a free slot by a
// compare-and-swap of its key, then stores the rule; a reader that finds the key but no rule yet
// computes the rule itself. Slots are never cleared: a change of the loaded code (dlopen,
// dlclose) moves to a new generation, which is part of every key, so that an old rule can never
// be taken for the code now at its address. The generation has room for 2^16 changes; after
// that, or once a key's neighbourhood is full (2^14 slots: a program with more call sites than
// that), the walk hands those stacks to libunwind: slower, still correct.

constexpr unsigned kSlotBits = 14;
constexpr std::size_t kSlots = std::size_t{1} << kSlotBits;
constexpr std::size_t kMaxProbes = 16;
constexpr unsigned kAddressBits = 47;  // x86-64 user space (canonical lower half)
constexpr std::uint64_t kMaxGeneration = 0xffff;

struct Slot {
  std::atomic<std::uint64_t> key{0};
  std::atomic<std::uint64_t> rule{0};  // packed (pack_rule); 0 while being written
};
Slot g_slots[kSlots];

// A rule in one word, laid out so that the walk reads it with the fewest instructions: the CFA
// offset in the low 32 bits, the rbp offset in the next 16, then flags; bit 63 is always set,
// so that a packed rule is never 0 (0: being written).
constexpr std::uint64_t kPackedValid = std::uint64_t{1} << 63;
constexpr std::uint64_t kPackedStandard = std::uint64_t{1} << 50;
constexpr std::uint64_t kPackedOutermost = std::uint64_t{1} << 51;
constexpr std::uint64_t kPackedCfaFromRbp = std::uint64_t{1} << 48;
constexpr std::uint64_t kPackedRbpSaved = std::uint64_t{1} << 49;

// Whether a rule fits in a packed word: the rbp offset must fit in 16 bits (else it is packed
// as unknown).
bool packable(const FrameRule& rule) {
  return rule.rbp_offset >= INT16_MIN && rule.rbp_offset <= INT16_MAX;
}

// The packed form of an unknown rule: the walk gives the stack to libunwind.
constexpr std::uint64_t kPackedUnknown = kPackedValid;

std::uint64_t pack_rule(const FrameRule& rule) {
  if (!packable(rule)) {
    return kPackedUnknown;
  }
  std::uint64_t packed = kPackedValid | static_cast<std::uint32_t>(rule.cfa_offset) |
                         (std::uint64_t{static_cast<std::uint16_t>(rule.rbp_offset)} << 32);
  packed |= rule.kind == FrameRule::Kind::Standard ? kPackedStandard : 0;
  packed |= rule.kind == FrameRule::Kind::Outermost ? kPackedOutermost : 0;
  packed |= rule.cfa_from_rbp ? kPackedCfaFromRbp : 0;
  packed |= rule.rbp_saved ? kPackedRbpSaved : 0;
  return packed;
}

std::size_t slot_of(std::uint64_t key) {
  return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ULL) >> (64 - kSlotBits));
}

std::uint64_t table_key(std::uintptr_t pc, std::uint64_t generation) {
  return pc | (generation << kAddressBits);
}

// The packed rule at `pc` (see find_frame_rule) when its home slot does not have it: from a
// neighbouring slot, or computed and added to the table. When the table cannot hold it (out of
// use, `generation` 0; an address beyond the key's bits; a full neighbourhood) the rule is
// "unknown": computing rules again and again would cost more than libunwind's own caches.
__attribute__((noinline)) std::uint64_t rule_not_at_home(std::uintptr_t pc,
                                                         std::uint64_t generation) {
  if (generation == 0 || pc >> kAddressBits != 0) {
    return kPackedUnknown;
  }
  const std::uint64_t key = table_key(pc, generation);
  const std::size_t home = slot_of(key);
  for (std::size_t probe = 0; probe < kMaxProbes; ++probe) {
    Slot& slot = g_slots[(home + probe) & (kSlots - 1)];
    std::uint64_t found = slot.key.load(std::memory_order_acquire);
    if (found == key) {
      const std::uint64_t packed = slot.rule.load(std::memory_order_acquire);
      return packed != 0 ? packed : pack_rule(find_frame_rule(pc));
    }
    if (found != 0) {
      continue;
    }
    const std::uint64_t packed = pack_rule(find_frame_rule(pc));
    if (slot.key.compare_exchange_strong(found, key, std::memory_order_acq_rel)) {
      slot.rule.store(packed, std::memory_order_release);
    }
    return packed;
  }
  return kPackedUnknown;  // the neighbourhood is full
}

// The packed rule at `pc`: one slot read when the rule is in its home slot.
inline std::uint64_t packed_rule_at(std::uintptr_t pc, std::uint64_t generation) {
  const std::uint64_t key = table_key(pc, generation);
  const Slot& slot = g_slots[slot_of(key)];
  if (__builtin_expect(pc >> kAddressBits == 0 && slot.key.load(std::memory_order_acquire) == key,
                       1)) {
    const std::uint64_t packed = slot.rule.load(std::memory_order_acquire);
    if (__builtin_expect(packed != 0, 1)) {
      return packed;
    }
  }
  return rule_not_at_home(pc, generation);
}

// ---- the walk -----------------------------------------------------------------------------------

// A word of the stack, at an address the call frame information gave.
inline std::uintptr_t stack_word(std::uintptr_t address) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): stack addresses are computed as numbers
  return *reinterpret_cast<const std::uintptr_t*>(address);
}

// The furthest a caller's frame may start above its callee's: a CFA outside this is a rule
// that does not fit the stack (a corrupt stack), and the walk gives up rather than read there.
constexpr std::uintptr_t kMaxFrameSize = std::uintptr_t{256} << 20;

// Where the walk's frame pointer came from, for its memo entry (walk_memo.h): a saved frame
// pointer is written down only once a rule uses it (a walk through code without frame pointers
// then writes one word per frame).
constexpr std::uintptr_t kFramePointerFromStart = 1;  // the register as the walk found it
constexpr std::uintptr_t kFramePointerWritten = 0;    // used, and written down (or nothing to)

}  // namespace

FrameRulesGeneration g_frame_rules_generation;

__attribute__((noinline)) int walk_stack(std::uintptr_t* frames, std::uint32_t capacity,
                                         WalkMemo* memo, std::uintptr_t tag) {
  const int got = walk_remembered_or_from(walk_start_here(), frames, capacity, memo, tag);
  __asm__ volatile("" : : "r"(got));  // never a tail call: the walk starts in this frame
  return got;
}

__attribute__((noinline)) int walk_from(const WalkStart& start, std::uint64_t generation,
                                        std::uintptr_t* frames, std::uint32_t capacity,
                                        WalkMemo* memo, WalkMemo::Entry* entry) {
  std::uintptr_t pc = start.pc;
  std::uintptr_t rsp = start.rsp;
  std::uintptr_t rbp = start.rbp;
  std::uint32_t read_count = 0;
  std::uintptr_t rbp_saved_at = kFramePointerFromStart;
  std::uint32_t stored = 0;
  while (stored < capacity) {
    // A frame reads at most two words. The capacity asked for does not bound the reads (a walk
    // at depth 64 mostly ends at the thread's first frame well before): the walk itself does.
    if (entry != nullptr && read_count + 2 > WalkMemo::kMaxReads) {
      entry = nullptr;
    }
    const std::uint64_t rule = packed_rule_at(pc, generation);
    if (__builtin_expect((rule & kPackedStandard) == 0, 0)) {
      if ((rule & kPackedOutermost) != 0) {
        break;
      }
      return kWalkUnknownFrame;
    }
    const bool from_rbp = (rule & kPackedCfaFromRbp) != 0;
    if (from_rbp && entry != nullptr) {
      if (rbp_saved_at == kFramePointerFromStart) {
        entry->frame_pointer_read = true;
      } else if (rbp_saved_at != kFramePointerWritten) {
        entry->reads[read_count++] = WalkMemo::Read{rbp_saved_at, rbp};
      }
      rbp_saved_at = kFramePointerWritten;
    }
    const std::uintptr_t base = from_rbp ? rbp : rsp;
    const std::uintptr_t cfa = base + static_cast<std::intptr_t>(static_cast<std::int32_t>(rule));
    // The caller's frame must start above this one, and not absurdly far (unsigned: both).
    if (__builtin_expect(cfa - rsp - 1 >= kMaxFrameSize, 0)) {
      return kWalkUnknownFrame;
    }
    const std::uintptr_t return_address = stack_word(cfa - 8);
    if (entry != nullptr) {
      entry->reads[read_count++] = WalkMemo::Read{cfa - 8, return_address};
    }
    if ((rule & kPackedRbpSaved) != 0) {
      const auto rbp_offset = static_cast<std::int16_t>(static_cast<std::uint16_t>(rule >> 32));
      rbp_saved_at = cfa + static_cast<std::intptr_t>(rbp_offset);
      rbp = stack_word(rbp_saved_at);
    }
    rsp = cfa;
    if (return_address == 0) {
      break;
    }
    frames[stored++] = return_address;
    pc = return_address - 1;  // inside the call instruction, which may end the function
  }
  if (entry != nullptr) {
    WalkMemo::end_reads(*entry, read_count);
    memo->filling = entry;
  }
  return static_cast<int>(stored);
}

void forget_frame_rules() {
  std::uint64_t generation = g_frame_rules_generation.value.load();
  std::uint64_t next = 0;
  do {
    next = generation == 0 || generation >= kMaxGeneration ? 0 : generation + 1;
  } while (!g_frame_rules_generation.value.compare_exchange_weak(generation, next));
}

}  // namespace rtrace::tracer
