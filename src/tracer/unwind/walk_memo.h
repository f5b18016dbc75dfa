// A thread's memory of its last stack walks (stack_walker.h), so that a program calling a traced
// function in a loop from one place does not pay for the same walk on every call (at depth 10
// a walk is 600-700 instructions, where checking a remembered one costs about 145 and a whole
// traced transfer about 450: bench/RESULTS.md, "The tracer's instructions per call").
//
// Never a wrong stack: a walk is a function of where it starts (the stack pointer, the frame
// pointer when a rule uses it before the walk reloads it), of the rules of the code (the rule
// table's generation) and of the words it reads from the stack. An entry keeps all of these, in
// the order the walk read them; a later walk from the same place is taken from the entry only
// when the starting registers and the generation are equal and every word read again from its
// address is equal: then the walk would read the same addresses and compute the same frames.
// The comparison stops at the first difference, so it reads no address that the walk itself
// would not read. A word that changes nothing (a saved frame pointer that no rule uses before
// the next one is loaded) is not kept: code without frame pointers keeps one word per frame.
//
// One per thread (thread-local, never shared: no lock); a signal handler cannot walk while the
// thread is inside a walk (the tracer guard is set around every backtrace).
#pragma once

#include <cstdint>

#include "tracer/core/libc_memory.h"

namespace rtrace::tracer {

struct WalkMemo {
  static constexpr std::uint32_t kSets = 8;
  static constexpr std::uint32_t kWays = 4;
  static constexpr std::uint32_t kEntries = kSets * kWays;
  // A walk that reads more words than this (at most two per frame: walks of 64 frames or more
  // may) is not kept, nor a result of more frames: whole stacks of rtrace record's default
  // depth, 64, are kept, whatever room the caller asked for.
  static constexpr std::uint32_t kMaxReads = 128;
  static constexpr std::uint32_t kMaxFrames = 64;
  // The reads are compared this many at a time (same_walk): one loop test per group.
  static constexpr std::uint32_t kReadGroup = 4;
  static_assert(kMaxReads % kReadGroup == 0);

  // A stack word the walk read: where, and what it was. Side by side, so that checking one is a
  // load of the pair's address, a load of the stack word and a comparison with the pair's value.
  struct Read {
    std::uintptr_t address;
    std::uintptr_t value;
  };

  struct Entry {
    bool valid;
    bool frame_pointer_read;  // the walk used the starting frame pointer
    // The reads, rounded up to a whole number of groups by repeating the last one (end_reads):
    // a word read again from an address just read is safe to read and compares equal again.
    std::uint32_t read_count;
    std::uint32_t capacity;
    std::uint32_t frame_count;
    std::uint64_t generation;
    std::uintptr_t tag;  // the caller's part of the key (walk_stack)
    std::uintptr_t stack_pointer;
    std::uintptr_t frame_pointer;
    std::uintptr_t frames[kMaxFrames];  // what the caller kept (keep)
    // Names these frames: a new number (from 1) each time keep writes them, so that a stamp
    // seen once stands for exactly the frames the entry had then.
    std::uint64_t stamp;
    // What SharedFrames::keep_remembered found the last times these frames followed a record
    // whose frames had stamp `stamp` (0: nothing yet): how many it kept. A few, the slot chosen
    // by that stamp: a call site follows a few others in turn (a memcpy after the memsets of
    // the last round at a few depths).
    struct After {
      std::uint64_t stamp;
      std::uint64_t kept;
    };
    static constexpr std::uint32_t kAfters = 8;
    After after[kAfters];
    // Stamps are given in turn: those of a few call sites taking turns are often a multiple of
    // one step apart, which a plain remainder would put into the same slot.
    After& after_for(std::uint64_t before) {
      return after[(before * 0x9e3779b97f4a7c15ULL) >> 61];  // kAfters == 8
    }
    Read reads[kMaxReads];
  };

  // The walk's reads are complete at `count`: rounds them up to whole groups (see Entry).
  static void end_reads(Entry& entry, std::uint32_t count) {
    if (count != 0) {
      for (const Read last = entry.reads[count - 1]; count % kReadGroup != 0; ++count) {
        entry.reads[count] = last;
      }
    }
    entry.read_count = count;
  }

  // Whether the stack word at `read.address` is still `read.value`.
  static bool still(const Read& read) {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): a stack address the same walk read
    return *reinterpret_cast<const std::uintptr_t*>(read.address) == read.value;
  }

  Entry entries[kEntries];
  std::uint8_t next_victim[kSets];  // per set: the way the next walk replaces
  std::uint32_t misses;             // walks not found since the last one found
  Entry* filling;         // the entry the last walk wrote its reads into; null: nothing to keep
  Entry* found;           // the entry the last walk was taken from
  std::uint64_t stamped;  // the last stamp given (Entry::stamp)

  // kWays entries per set, the set chosen by the key; a new walk replaces the set's entries in
  // turn. (Sets, not one entry per key: a loop calling from a few places at a few depths would
  // otherwise keep pushing its own walks out.)
  static std::uint32_t set_of(std::uintptr_t tag, std::uintptr_t stack_pointer) {
    const std::uintptr_t mixed =
        (tag + stack_pointer * 0xff51afd7ed558ccdULL) * 0x9e3779b97f4a7c15ULL;
    return static_cast<std::uint32_t>(mixed >> 61) * kWays;  // kSets == 8
  }

  // Whether `entry` holds the walk that would start here now (see the top of this file).
  static bool same_walk(const Entry& entry, std::uint64_t generation, std::uintptr_t tag,
                        std::uint32_t capacity, std::uintptr_t stack_pointer,
                        std::uintptr_t frame_pointer) {
    if (!entry.valid || entry.tag != tag || entry.stack_pointer != stack_pointer ||
        entry.generation != generation || entry.capacity != capacity ||
        (entry.frame_pointer_read && entry.frame_pointer != frame_pointer)) {
      return false;
    }
    // In the walk's order, stopping at the first difference (see the top of this file); a group
    // at a time, each read with its own test (the ~25 words of a walk at depth 10 were 7
    // instructions each in a loop of one, 4 here: bench/callgrind-memtransfer.sh).
    const Read* read = entry.reads;
    const Read* const end = read + entry.read_count;
    for (; read != end; read += kReadGroup) {
      static_assert(kReadGroup == 4);
      if (!still(read[0]) || !still(read[1]) || !still(read[2]) || !still(read[3])) {
        return false;
      }
    }
    return true;
  }

  // After this many walks in a row that were not found, only one walk in kSampledMisses writes
  // an entry: a program whose stacks never repeat (one call site reached at ever new depths)
  // then pays for the look-up and not for writing down every walk (one memcpy reached at 64
  // random depths: 12 % more instructions per call than with no memo).
  static constexpr std::uint32_t kMissesBeforeSampling = 64;
  static constexpr std::uint32_t kSampledMisses = 8;

  // True when the memo holds the walk that would start here now (`found` is its entry).
  // Otherwise `filling` is the entry the walk is to write its reads into (null: this walk is not
  // written down), emptied until the caller keeps the walk's result.
  bool look_up(std::uint64_t generation, std::uintptr_t tag, std::uint32_t capacity,
               std::uintptr_t stack_pointer, std::uintptr_t frame_pointer) {
    const std::uint32_t set = set_of(tag, stack_pointer);
    for (std::uint32_t way = 0; way < kWays; ++way) {
      Entry& entry = entries[set + way];
      if (same_walk(entry, generation, tag, capacity, stack_pointer, frame_pointer)) {
        found = &entry;
        filling = nullptr;
        misses = 0;
        return true;
      }
    }
    filling = nullptr;
    if (++misses > kMissesBeforeSampling && misses % kSampledMisses != 0) {
      return false;
    }
    std::uint8_t& victim = next_victim[set / kWays];
    const std::uint32_t way = victim;
    victim = static_cast<std::uint8_t>((way + 1) % kWays);
    Entry& entry = entries[set + way];
    entry.valid = false;
    entry.frame_pointer_read = false;
    entry.generation = generation;
    entry.tag = tag;
    entry.capacity = capacity;
    entry.stack_pointer = stack_pointer;
    entry.frame_pointer = frame_pointer;
    filling = &entry;
    return false;
  }

  // Keeps `count` frames as the result of the last walk (when it wrote an entry): what the next
  // walk from the same place gets back (remembered).
  void keep(const std::uintptr_t* frames, std::uint32_t count) {
    Entry* entry = filling;
    filling = nullptr;
    if (entry == nullptr || count > kMaxFrames) {
      return;
    }
    libc_copy(entry->frames, frames, sizeof *frames * count);
    entry->frame_count = count;
    entry->stamp = ++stamped;
    for (Entry::After& after : entry->after) {
      after.stamp = 0;
    }
    entry->valid = true;
  }

  // The frames kept for the walk found in the memo (walk_stack returned kWalkRemembered).
  std::uint32_t remembered(std::uintptr_t* frames) const {
    libc_copy(frames, found->frames, sizeof *frames * found->frame_count);
    return found->frame_count;
  }

  // The same, where they are (valid until this thread's next walk), not copied: the entry.
  std::uint32_t remembered_in_place(Entry** entry) const {
    *entry = found;
    return found->frame_count;
  }
};

}  // namespace rtrace::tracer
