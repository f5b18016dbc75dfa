#include "symbols/module_symbols.h"

#include <gelf.h>

#include <limits>
#include <utility>

namespace rtrace::symbols {
namespace {

// Mappings start on page boundaries; traces come from x86-64 and ARM systems with 4 KiB pages.
constexpr std::uint64_t kPageSize = 4096;

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

DebugSearch::DebugSearch(const std::string& root) {
  // libdwfl's list: the file's own directory, its .debug subdirectory, then the global debug
  // directory (searched by build-id and by the debuglink name). Null means its default list.
  if (!root.empty()) {
    path_ = ":.debug:" + root + "/usr/lib/debug";
    path_pointer_ = path_.data();
  }
  callbacks_.find_elf = dwfl_build_id_find_elf;
  callbacks_.find_debuginfo = dwfl_standard_find_debuginfo;
  callbacks_.section_address = dwfl_offline_section_address;
  callbacks_.debuginfo_path = root.empty() ? nullptr : &path_pointer_;
}

std::unique_ptr<ModuleSymbols> ModuleSymbols::open(const std::string& file,
                                                   std::string display_path,
                                                   const DebugSearch& search,
                                                   const ResolveOptions& options) {
  Dwfl* dwfl = dwfl_begin(search.callbacks());
  if (dwfl == nullptr) {
    return nullptr;
  }
  dwfl_report_begin(dwfl);
  // Reported at base 0: module addresses are the file's own virtual addresses.
  Dwfl_Module* module = dwfl_report_elf(dwfl, display_path.c_str(), file.c_str(), -1, 0, false);
  dwfl_report_end(dwfl, nullptr, nullptr);
  if (module == nullptr) {
    dwfl_end(dwfl);
    return nullptr;
  }
  return std::unique_ptr<ModuleSymbols>(
      new ModuleSymbols(dwfl, module, std::move(display_path), options));
}

ModuleSymbols::ModuleSymbols(Dwfl* dwfl, Dwfl_Module* module, std::string display_path,
                             const ResolveOptions& options)
    : dwfl_(dwfl), module_(module), display_path_(std::move(display_path)), options_(options) {
  GElf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(module_, &bias);
  GElf_Ehdr header;
  std::size_t count = 0;
  if (elf == nullptr || gelf_getehdr(elf, &header) == nullptr || elf_getphdrnum(elf, &count) != 0) {
    return;
  }
  position_independent_ = header.e_type == ET_DYN;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr segment;
    if (gelf_getphdr(elf, static_cast<int>(i), &segment) == nullptr) {
      continue;
    }
    if (segment.p_type == PT_LOAD && (segment.p_flags & PF_X) != 0) {
      code_vaddr_ = segment.p_vaddr & ~(kPageSize - 1);
      break;
    }
  }
}

ModuleSymbols::~ModuleSymbols() {
  dwfl_end(dwfl_);
}

std::uint64_t ModuleSymbols::load_bias(std::uint64_t mapping_start) const {
  return position_independent_ ? mapping_start - code_vaddr_ : 0;
}

std::uint32_t ModuleSymbols::lookup(std::uint64_t address) {
  auto [entry, added] = by_address_.try_emplace(address, 0);
  if (added) {
    entry->second = intern(answer(address));
  }
  return entry->second;
}

namespace {

template <typename Value>
void append_bytes(std::string& bytes, const Value& value) {
  bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
}

}  // namespace

// Many addresses share a line (and the inlined calls around it). Equal answers are compared by
// their interned pointers, so the content key is a few bytes per frame.
std::uint32_t ModuleSymbols::intern(const Answer& answer) {
  content_.clear();
  append_bytes(content_, answer.function);
  append_bytes(content_, answer.file);
  append_bytes(content_, answer.line);
  for (std::uint32_t i = 0; i < answer.inlined_count; ++i) {
    const InlinedAnswer& call = inlined_[answer.first_inlined + i];
    append_bytes(content_, call.function);
    append_bytes(content_, call.file);
    append_bytes(content_, call.line);
  }
  auto [entry, added] = by_content_.try_emplace(content_, 0);
  if (added) {
    entry->second = static_cast<std::uint32_t>(answers_.size());
    answers_.push_back(answer);
  } else if (answer.inlined_count > 0) {
    // The inlined calls were appended (last) for this answer alone: drop them again.
    inlined_.resize(answer.first_inlined);
  }
  return entry->second;
}

namespace {

void set_position(SourcePosition& position, const std::string& function, const std::string* file,
                  std::uint32_t line) {
  const auto [name, parameters] = split_parameters(function);
  position.function = name;
  position.parameters = parameters;
  position.file = file != nullptr ? *file : std::string();
  position.line = file != nullptr ? line : 0;
  position.column = 0;
}

}  // namespace

void ModuleSymbols::describe(std::uint32_t index, Symbol& symbol) const {
  const Answer& answer = answers_.at(index);
  symbol.module = display_path_;
  set_position(symbol.where, *answer.function, answer.file, answer.line);
  symbol.inlined_by.resize(answer.inlined_count);
  for (std::uint32_t i = 0; i < answer.inlined_count; ++i) {
    const InlinedAnswer& call = inlined_[answer.first_inlined + i];
    set_position(symbol.inlined_by[i], *call.function, call.file, call.line);
  }
}

DescribedAnswer ModuleSymbols::described(std::uint32_t index) const {
  DescribedAnswer answer;
  describe(index, answer.symbol);
  answer.hash = SymbolTable::hash(answer.symbol);
  return answer;
}

void ModuleSymbols::prepare_description(std::uint32_t index) {
  if (prepared_state_.size() <= index) {
    prepared_state_.resize(answers_.size(), Prepared::No);
    prepared_.resize(answers_.size());
  }
  if (prepared_state_[index] == Prepared::No) {
    prepared_[index] = described(index);
    prepared_state_[index] = Prepared::Ready;
  }
}

DescribedAnswer ModuleSymbols::take_description(std::uint32_t index) {
  const bool ready = index < prepared_state_.size() && prepared_state_[index] == Prepared::Ready;
  if (index < prepared_state_.size()) {
    prepared_state_[index] = Prepared::Taken;
  }
  return ready ? std::move(prepared_[index]) : described(index);
}

ModuleSymbols::Answer ModuleSymbols::answer(std::uint64_t address) {
  Answer answer;
  if (options_.method == ResolveMethod::DebugInfo && source_answer(address, answer)) {
    return answer;
  }
  answer.function = function_from_symbols(address);
  return answer;
}

// The debug-info form, when DWARF has a line for the address and some name for its function.
bool ModuleSymbols::source_answer(std::uint64_t address, Answer& answer) {
  if (dwarf() == nullptr) {
    return false;
  }
  const bool in_some_function = !function_from_symbols(address)->empty();
  if (!dwarf_->lookup(address, in_some_function, frames_)) {
    return false;
  }
  // The function the code was compiled into (the outermost frame) goes by the name the file's
  // own symbol table gives it, as llvm-symbolizer names it: DWARF knows glibc's exported
  // functions by internal aliases (__GI_xdr_sizeof for xdr_sizeof), and C++ functions with
  // internal linkage by their bare names, while the table has them mangled.
  const std::string* symbol = function_from_own_symbols(address);
  if (!symbol->empty()) {
    frames_.back().function = symbol;
  }
  answer.function = frames_.front().function;
  // Code without a DWARF function (assembly): the fullest symbol table may still name it.
  if (answer.function->empty()) {
    answer.function = function_from_symbols(address);
  }
  answer.file = source_file(frames_.front());
  answer.line = static_cast<std::uint32_t>(frames_.front().line);
  answer.first_inlined = static_cast<std::uint32_t>(inlined_.size());
  answer.inlined_count = static_cast<std::uint32_t>(frames_.size() - 1);
  for (std::size_t i = 1; i < frames_.size(); ++i) {
    inlined_.push_back({frames_[i].function, source_file(frames_[i]),
                        static_cast<std::uint32_t>(frames_[i].line)});
  }
  return true;
}

DwarfIndex* ModuleSymbols::dwarf() {
  if (!dwarf_loaded_) {
    dwarf_loaded_ = true;
    Dwarf_Addr bias = 0;
    if (Dwarf* dwarf = dwfl_module_getdwarf(module_, &bias)) {
      dwarf_ = std::make_unique<DwarfIndex>(dwarf, bias);
    }
  }
  return dwarf_.get();
}

std::size_t ModuleSymbols::part_of(std::uint64_t address) {
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  if (options_.method != ResolveMethod::DebugInfo || dwarf() == nullptr) {
    return kNone;
  }
  return dwarf_->unit_number(address).value_or(kNone);
}

const std::string* ModuleSymbols::function_from_symbols(std::uint64_t address) {
  if (!symbols_) {
    symbols_.emplace(module_, SymbolSource::Fullest);
  }
  return &symbols_->function_at(address);
}

const std::string* ModuleSymbols::function_from_own_symbols(std::uint64_t address) {
  if (!own_symbols_) {
    own_symbols_.emplace(module_, SymbolSource::FileItself);
  }
  return &own_symbols_->function_at(address);
}

const std::string* ModuleSymbols::source_file(const SourceFrame& frame) {
  auto [entry, added] = files_.try_emplace(frame.file);
  if (added) {
    const std::string file(frame.file);
    entry->second = options_.full_path ? file : base_name(file);
  }
  return &entry->second;
}

}  // namespace rtrace::symbols
