// The function symbols of one module, sorted for address lookup.
#pragma once

#include <elfutils/libdwfl.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rtrace::symbols {

enum class SymbolSource {
  // The fullest table: .symtab from the file or from its separate debug file, else .dynsym.
  Fullest,
  // The file's own table only (.symtab, else .dynsym): for a stripped library, its exported
  // names, which are the names its users know (glob, not glibc's internal __glob or __GI_glob).
  FileItself,
};

class ElfSymbolTable {
 public:
  // Addresses are module addresses (file vaddr: modules are reported at bias 0).
  ElfSymbolTable(Dwfl_Module* module, SymbolSource source);

  // The function containing `address` in display form ("f()", "ns::g(int)"), or empty. A
  // symbol without a size (hand-written assembly such as _start) covers everything up to the
  // next symbol or the end of its section. Of several names at one address the one with the
  // largest size wins, then the last in the table (as llvm-symbolizer chooses). Names are
  // demangled once per symbol, on first use; the reference stays valid as long as this table.
  const std::string& function_at(std::uint64_t address);

  std::size_t size() const { return symbols_.size(); }

 private:
  struct Symbol {
    std::uint64_t start = 0;
    std::uint64_t end = 0;
    std::uint64_t size = 0;
    std::uint32_t order = 0;  // position in the table
    bool unsized = false;
    std::string_view name;  // points into libelf's string table, alive as long as the Dwfl
  };
  void add(const GElf_Sym& sym, GElf_Addr address, std::string_view name, Elf* elf, GElf_Addr bias);
  void index();
  void read_fullest(Dwfl_Module* module);
  void read_file_itself(Dwfl_Module* module);

  std::vector<Symbol> symbols_;
  std::vector<std::string> display_names_;  // by symbol index; empty until first asked for
};

}  // namespace rtrace::symbols
