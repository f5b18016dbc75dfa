// The dynamic symbols of an ELF file on disk, for finding a function in another process: its
// address there is the object's load bias (process_maps.h) plus the symbol's value read here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace rtrace::recorder::attach {

class ElfDynamicSymbols {
 public:
  // Reads `path` (a 64-bit ELF file of this machine's byte order). Throws std::runtime_error
  // naming the file and what is wrong with it.
  explicit ElfDynamicSymbols(const std::string& path);

  // The value of the function or object `name` the file defines in .dynsym (the default version
  // when there are several); nothing when it does not define it.
  std::optional<std::uint64_t> value_of(const std::string& name) const;

  // The virtual address of the first loadable segment, page-aligned (0 for a shared library).
  std::uint64_t first_load_address() const { return first_load_address_; }

 private:
  std::string path_;
  std::string data_;
  std::uint64_t first_load_address_ = 0;
};

}  // namespace rtrace::recorder::attach
