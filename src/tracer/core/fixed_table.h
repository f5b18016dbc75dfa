// A fixed-capacity hash table from a 64-bit key (an address, a descriptor, a segment id) to a
// small value: what a module remembers between two calls (which segment an address is attached
// to, what a descriptor was opened as). It never allocates, so a wrapper can use it wherever it
// runs; callers serialise access themselves (ModuleLock). When the table is full, put() says so
// and the caller goes on without the entry (it then reports what the original reports for an
// unknown key).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rtrace::tracer {

template <typename Value, std::size_t Capacity>
class FixedTable {
  static_assert(Capacity >= 2 && (Capacity & (Capacity - 1)) == 0, "a power of two");

 public:
  // Stores `value` under `key`, replacing what was there; false when the table is full.
  bool put(std::uint64_t key, const Value& value) {
    std::size_t slot = home(key);
    while (slots_[slot].used) {
      if (slots_[slot].key == key) {
        slots_[slot].value = value;
        return true;
      }
      slot = next(slot);
    }
    if (count_ + 1 == Capacity) {
      return false;  // one slot always stays empty: lookups end there
    }
    slots_[slot] = Slot{key, true, value};
    ++count_;
    return true;
  }

  // The value stored under `key`, or nullptr.
  Value* find(std::uint64_t key) {
    for (std::size_t slot = home(key); slots_[slot].used; slot = next(slot)) {
      if (slots_[slot].key == key) {
        return &slots_[slot].value;
      }
    }
    return nullptr;
  }

  // Forgets `key` (linear probing with backward-shift deletion: no tombstones to pile up).
  void erase(std::uint64_t key) {
    std::size_t hole = home(key);
    while (slots_[hole].used && slots_[hole].key != key) {
      hole = next(hole);
    }
    if (!slots_[hole].used) {
      return;
    }
    for (std::size_t slot = next(hole); slots_[slot].used; slot = next(slot)) {
      // An entry may move back into the hole unless its home lies cyclically in (hole, slot].
      const std::size_t wanted = home(slots_[slot].key);
      const bool stays =
          hole < slot ? (wanted > hole && wanted <= slot) : (wanted > hole || wanted <= slot);
      if (!stays) {
        slots_[hole] = slots_[slot];
        hole = slot;
      }
    }
    slots_[hole].used = false;
    --count_;
  }

  // Forgets everything.
  void clear() {
    for (Slot& slot : slots_) {
      slot.used = false;
    }
    count_ = 0;
  }

  std::size_t size() const { return count_; }

  // Calls visit(key, value) for every entry, in no particular order; the table must not change
  // meanwhile (collect the keys to erase, then erase them).
  template <typename Visit>
  void for_each(Visit&& visit) const {
    for (const Slot& slot : slots_) {
      if (slot.used) {
        visit(slot.key, slot.value);
      }
    }
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    bool used = false;
    Value value{};
  };

  static std::size_t home(std::uint64_t key) {
    // Fibonacci hashing: addresses and descriptors differ in their low bits only.
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> 32) & (Capacity - 1);
  }
  static std::size_t next(std::size_t slot) { return (slot + 1) & (Capacity - 1); }

  Slot slots_[Capacity];
  std::size_t count_ = 0;
};

}  // namespace rtrace::tracer
