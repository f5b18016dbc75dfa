#include "symbols/elf_symbol_table.h"

#include <gelf.h>

#include <algorithm>

#include "symbols/demangle.h"

namespace rtrace::symbols {
namespace {

bool is_function(const GElf_Sym& sym) {
  const int type = GELF_ST_TYPE(sym.st_info);
  return (type == STT_FUNC || type == STT_GNU_IFUNC) && sym.st_shndx != SHN_UNDEF;
}

// "_IO_file_overflow@@GLIBC_2.2.5" -> "_IO_file_overflow": the version is no part of the name.
std::string_view without_version(std::string_view name) {
  return name.substr(0, name.find('@'));
}

// Where the section holding an unsized symbol ends (module addresses); the symbol's own address
// when the section is unknown, so that it covers nothing.
std::uint64_t section_end(Elf* elf, std::size_t section, GElf_Addr bias, std::uint64_t fallback) {
  GElf_Shdr header;
  Elf_Scn* scn = elf != nullptr ? elf_getscn(elf, section) : nullptr;
  if (scn == nullptr || gelf_getshdr(scn, &header) == nullptr) {
    return fallback;
  }
  return header.sh_addr + header.sh_size + bias;
}

// The file's .symtab, else its .dynsym; nullptr when it has neither.
Elf_Scn* symbol_section(Elf* elf, GElf_Shdr& header) {
  for (const GElf_Word type : {SHT_SYMTAB, SHT_DYNSYM}) {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
      if (gelf_getshdr(scn, &header) != nullptr && header.sh_type == type) {
        return scn;
      }
    }
  }
  return nullptr;
}

}  // namespace

ElfSymbolTable::ElfSymbolTable(Dwfl_Module* module, SymbolSource source) {
  if (source == SymbolSource::Fullest) {
    read_fullest(module);
  } else {
    read_file_itself(module);
  }
  index();
}

void ElfSymbolTable::add(const GElf_Sym& sym, GElf_Addr address, std::string_view name, Elf* elf,
                         GElf_Addr bias) {
  if (name.empty() || !is_function(sym)) {
    return;
  }
  const std::uint64_t end =
      sym.st_size != 0 ? address + sym.st_size : section_end(elf, sym.st_shndx, bias, address);
  symbols_.push_back({address, end, sym.st_size, static_cast<std::uint32_t>(symbols_.size()),
                      sym.st_size == 0, without_version(name)});
}

void ElfSymbolTable::read_fullest(Dwfl_Module* module) {
  const int count = dwfl_module_getsymtab(module);
  for (int i = 1; i < count; ++i) {
    GElf_Sym sym;
    GElf_Addr address = 0;
    Elf* elf = nullptr;
    Dwarf_Addr bias = 0;
    const char* name = dwfl_module_getsym_info(module, i, &sym, &address, nullptr, &elf, &bias);
    if (name != nullptr) {
      add(sym, address, name, elf, bias);
    }
  }
}

void ElfSymbolTable::read_file_itself(Dwfl_Module* module) {
  GElf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(module, &bias);
  GElf_Shdr header;
  Elf_Scn* scn = elf != nullptr ? symbol_section(elf, header) : nullptr;
  Elf_Data* data = scn != nullptr ? elf_getdata(scn, nullptr) : nullptr;
  if (data == nullptr || header.sh_entsize == 0) {
    return;
  }
  const std::size_t count = header.sh_size / header.sh_entsize;
  for (std::size_t i = 1; i < count; ++i) {
    GElf_Sym sym;
    if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) {
      break;
    }
    const char* name = elf_strptr(elf, header.sh_link, sym.st_name);
    if (name != nullptr) {
      add(sym, sym.st_value + bias, name, elf, bias);
    }
  }
}

void ElfSymbolTable::index() {
  // By address; at one address the chosen name first, so that the others can be dropped.
  std::sort(symbols_.begin(), symbols_.end(), [](const Symbol& a, const Symbol& b) {
    if (a.start != b.start) {
      return a.start < b.start;
    }
    if (a.size != b.size) {
      return a.size > b.size;
    }
    return a.order > b.order;
  });
  symbols_.erase(std::unique(symbols_.begin(), symbols_.end(),
                             [](const Symbol& a, const Symbol& b) { return a.start == b.start; }),
                 symbols_.end());
  for (std::size_t i = 0; i + 1 < symbols_.size(); ++i) {
    if (symbols_[i].unsized) {
      symbols_[i].end = std::min(symbols_[i].end, symbols_[i + 1].start);
    }
  }
  display_names_.resize(symbols_.size());
}

const std::string& ElfSymbolTable::function_at(std::uint64_t address) {
  static const std::string none;
  auto after = std::upper_bound(
      symbols_.begin(), symbols_.end(), address,
      [](std::uint64_t value, const Symbol& symbol) { return value < symbol.start; });
  // Symbols can nest (a local alias inside a bigger function): look back a little for one that
  // covers the address.
  for (int tries = 0; after != symbols_.begin() && tries < 4; ++tries) {
    const Symbol& symbol = *--after;
    if (address < symbol.end) {
      std::string& display = display_names_[after - symbols_.begin()];
      if (display.empty()) {
        display = display_function_name(symbol.name);
      }
      return display;
    }
  }
  return none;
}

}  // namespace rtrace::symbols
