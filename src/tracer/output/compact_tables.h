// The compact writer's tables (see protocol/compact_encoder.h): the stacks and function
// names already written, each found again by a hash of its content. In memory mapped on first
// use, never from malloc (the writer runs on the drain path, also from signal handlers), and
// bounded: a full table answers 0 and the encoder starts it again (a RESET record).
#pragma once

#include <cstddef>
#include <cstdint>

#include "protocol/compact_protocol.h"

namespace rtrace::tracer {

class CompactTables {
 public:
  std::uint64_t stack_id(const std::uint64_t* frames, std::uint32_t count, bool& fresh);
  std::uint64_t function_id(const char* name, std::size_t length, bool& fresh);
  std::uint64_t stack_with_outer(std::uint64_t key);
  void add_outer(std::uint64_t key, std::uint64_t stack);
  const std::uint64_t* stack_frames(std::uint64_t stack, std::uint32_t& count);
  // Null only when the memory for the table cannot be mapped; a full table is forgotten whole.
  std::uint64_t* resource_slot(std::uint64_t resource_id);
  void clear(compact::Table table);
  // Both tables empty, for a new trace.
  void clear_all() {
    clear(compact::Table::Stacks);
    clear(compact::Table::Functions);
    clear_resources();
  }

 private:
  static void clear_resources();
};

// Where the resource table looks first for `resource_id` (compact_tables.cpp says why so);
// declared here for its tests.
std::size_t compact_resource_home(std::uint64_t resource_id);

}  // namespace rtrace::tracer
