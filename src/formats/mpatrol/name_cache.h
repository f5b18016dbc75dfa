// The reading side of an mpatrol name cache: 32 slots, numbered 1 to 32, each holding the name
// last defined for it. (The writer decides which slot to reuse, least recently used first; a
// reader only follows its definitions.) A tracing file has two: function names and file names.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace rtrace::mpatrol {

inline constexpr unsigned kNameCacheSlots = 32;

class NameCache {
 public:
  static bool valid_slot(unsigned slot) { return slot >= 1 && slot <= kNameCacheSlots; }

  void define(unsigned slot, std::string_view name) {
    Slot& s = slots_[slot - 1];
    s.name.assign(name);
    s.defined = true;
  }
  bool defined(unsigned slot) const { return slots_[slot - 1].defined; }
  std::string_view name(unsigned slot) const { return slots_[slot - 1].name; }

 private:
  struct Slot {
    std::string name;
    bool defined = false;
  };
  std::array<Slot, kNameCacheSlots> slots_;
};

}  // namespace rtrace::mpatrol
