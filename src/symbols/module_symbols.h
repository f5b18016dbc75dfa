// Everything known about the code of one ELF file (executable or shared library): where its
// code sits relative to a mapping, its symbol table and its DWARF, and a cache of answers.
#pragma once

#include <elfutils/libdwfl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/records.h"
#include "symbols/dwarf_index.h"
#include "symbols/elf_symbol_table.h"
#include "symbols/resolve_options.h"

namespace rtrace::symbols {

// Where libdwfl looks for separate debug files (build-id and .gnu_debuglink), shared by all
// modules; must outlive them.
class DebugSearch {
 public:
  explicit DebugSearch(const std::string& root);
  DebugSearch(const DebugSearch&) = delete;
  DebugSearch& operator=(const DebugSearch&) = delete;
  const Dwfl_Callbacks* callbacks() const { return &callbacks_; }

 private:
  std::string path_;
  char* path_pointer_ = nullptr;
  Dwfl_Callbacks callbacks_{};
};

// An answer put into words: the Symbol it stands for and its SymbolTable::hash.
struct DescribedAnswer {
  Symbol symbol;
  std::size_t hash = 0;
};

class ModuleSymbols {
 public:
  // Opens `file` (the module's path under the sysroot); nullptr when it is not a readable ELF
  // file. `display_path` is the path the trace names, printed in `from` frames.
  static std::unique_ptr<ModuleSymbols> open(const std::string& file, std::string display_path,
                                             const DebugSearch& search,
                                             const ResolveOptions& options);
  ~ModuleSymbols();
  ModuleSymbols(const ModuleSymbols&) = delete;
  ModuleSymbols& operator=(const ModuleSymbols&) = delete;

  // What to subtract from a run-time address in the executable mapping that starts at
  // `mapping_start` to get an address of this file: the mapping holds the first executable
  // PT_LOAD segment; position-independent files (ET_DYN) can be loaded anywhere.
  std::uint64_t load_bias(std::uint64_t mapping_start) const;

  // The answer for an address of this file (already biased and moved into the call
  // instruction): a small number, the same for the same address, looked up once, and the same
  // for addresses whose answers say the same (so callers describe each answer once).
  std::uint32_t lookup(std::uint64_t address);
  // Whether lookup(address) has been called (its answer is kept).
  bool looked_up(std::uint64_t address) const { return by_address_.contains(address); }
  // Which part of the debug information `address` belongs to (its compile unit's number, the
  // largest number for none): addresses of one part are best looked up by one thread, which
  // then decodes that part once. Reads the module's DWARF index on first use.
  std::size_t part_of(std::uint64_t address);
  // Writes answer `index` into `info` (reusing its storage).
  void describe(std::uint32_t index, Symbol& symbol) const;
  // Describes answer `index` now, unless done or taken before, and keeps it for
  // take_description(): the thread that looked the answer up also does this (demangled names
  // split, strings copied, the hash made), leaving the calling thread only the interning.
  void prepare_description(std::uint32_t index);
  // Answer `index` described: the prepared one, moved out, or made now.
  DescribedAnswer take_description(std::uint32_t index);

 private:
  // Answers hold interned strings: a module has few distinct functions and lines, while a
  // trace asks about many addresses in them.
  struct Answer {
    const std::string* function = nullptr;
    const std::string* file = nullptr;  // null: no line information, only the symbol table
    std::uint32_t line = 0;
    std::uint32_t first_inlined = 0;
    std::uint32_t inlined_count = 0;
  };
  struct InlinedAnswer {
    const std::string* function = nullptr;
    const std::string* file = nullptr;
    std::uint32_t line = 0;
  };

  ModuleSymbols(Dwfl* dwfl, Dwfl_Module* module, std::string display_path,
                const ResolveOptions& options);
  Answer answer(std::uint64_t address);
  DescribedAnswer described(std::uint32_t index) const;
  // The index of an answer equal to `answer` given before, or of `answer` added now.
  std::uint32_t intern(const Answer& answer);
  bool source_answer(std::uint64_t address, Answer& answer);
  DwarfIndex* dwarf();  // null: no DWARF
  const std::string* function_from_symbols(std::uint64_t address);
  const std::string* function_from_own_symbols(std::uint64_t address);
  const std::string* source_file(const SourceFrame& frame);

  Dwfl* dwfl_;
  Dwfl_Module* module_;
  std::string display_path_;
  const ResolveOptions& options_;
  bool position_independent_ = false;
  std::uint64_t code_vaddr_ = 0;  // page-aligned vaddr of the first executable segment

  std::optional<ElfSymbolTable> symbols_;      // read on first use
  std::optional<ElfSymbolTable> own_symbols_;  // read on first use
  std::unique_ptr<DwarfIndex> dwarf_;          // read on first use (null: no DWARF)
  bool dwarf_loaded_ = false;
  std::vector<SourceFrame> frames_;  // scratch

  std::unordered_map<std::uint64_t, std::uint32_t> by_address_;
  // An answer's content (its interned pointers and lines, as bytes) -> its index.
  std::unordered_map<std::string, std::uint32_t> by_content_;
  std::string content_;  // scratch
  std::vector<Answer> answers_;
  std::vector<InlinedAnswer> inlined_;
  std::unordered_map<const char*, std::string> files_;  // DWARF's name -> the name we show
  // By answer index: what prepare_description() made, and where each answer stands.
  enum class Prepared : std::uint8_t { No, Ready, Taken };
  std::vector<DescribedAnswer> prepared_;
  std::vector<Prepared> prepared_state_;
};

}  // namespace rtrace::symbols
