#include "recorder/attach/elf_dynamic_symbols.h"

#include <elf.h>
#include <string.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string_view>

namespace rtrace::recorder::attach {
namespace {

// A copy of a T at `offset` of `data`, or nothing when it does not fit.
template <typename T>
std::optional<T> read_at(const std::string& data, std::uint64_t offset) {
  if (offset > data.size() || data.size() - offset < sizeof(T)) {
    return std::nullopt;
  }
  T value;
  std::memcpy(&value, data.data() + offset, sizeof(T));
  return value;
}

}  // namespace

ElfDynamicSymbols::ElfDynamicSymbols(const std::string& path) : path_(path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw std::runtime_error(path + ": cannot be read");
  }
  data_.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  const std::optional<Elf64_Ehdr> header = read_at<Elf64_Ehdr>(data_, 0);
  if (!header || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
      header->e_ident[EI_CLASS] != ELFCLASS64) {
    throw std::runtime_error(path + ":0: not a 64-bit ELF file");
  }
  bool first = true;
  for (std::uint16_t i = 0; i < header->e_phnum; ++i) {
    const std::uint64_t offset = header->e_phoff + std::uint64_t{i} * header->e_phentsize;
    const std::optional<Elf64_Phdr> segment = read_at<Elf64_Phdr>(data_, offset);
    if (!segment) {
      throw std::runtime_error(path + ":" + std::to_string(offset) +
                               ": program header past the end of the file");
    }
    if (segment->p_type == PT_LOAD && first) {
      const std::uint64_t align = segment->p_align > 1 ? segment->p_align : 1;
      first_load_address_ = segment->p_vaddr & ~(align - 1);
      first = false;
    }
  }
}

std::optional<std::uint64_t> ElfDynamicSymbols::value_of(const std::string& name) const {
  const Elf64_Ehdr header = *read_at<Elf64_Ehdr>(data_, 0);
  std::optional<Elf64_Shdr> symbols;
  std::optional<Elf64_Shdr> versions;
  for (std::uint16_t i = 0; i < header.e_shnum; ++i) {
    const std::uint64_t offset = header.e_shoff + std::uint64_t{i} * header.e_shentsize;
    const std::optional<Elf64_Shdr> section = read_at<Elf64_Shdr>(data_, offset);
    if (!section) {
      throw std::runtime_error(path_ + ":" + std::to_string(offset) +
                               ": section header past the end of the file");
    }
    if (section->sh_type == SHT_DYNSYM) {
      symbols = section;
    } else if (section->sh_type == SHT_GNU_versym) {
      versions = section;
    }
  }
  if (!symbols) {
    return std::nullopt;
  }
  const std::uint64_t strings_header =
      header.e_shoff + std::uint64_t{symbols->sh_link} * header.e_shentsize;
  const std::optional<Elf64_Shdr> strings = read_at<Elf64_Shdr>(data_, strings_header);
  if (!strings || strings->sh_offset > data_.size() ||
      data_.size() - strings->sh_offset < strings->sh_size) {
    throw std::runtime_error(path_ + ":" + std::to_string(strings_header) +
                             ": the dynamic string table lies past the end of the file");
  }
  const std::uint64_t count = symbols->sh_entsize != 0 ? symbols->sh_size / symbols->sh_entsize : 0;
  std::optional<std::uint64_t> found;
  for (std::uint64_t i = 1; i < count; ++i) {
    const std::uint64_t offset = symbols->sh_offset + i * symbols->sh_entsize;
    const std::optional<Elf64_Sym> symbol = read_at<Elf64_Sym>(data_, offset);
    if (!symbol) {
      throw std::runtime_error(path_ + ":" + std::to_string(offset) +
                               ": symbol past the end of the file");
    }
    if (symbol->st_shndx == SHN_UNDEF || symbol->st_value == 0 ||
        symbol->st_name >= strings->sh_size) {
      continue;
    }
    const char* text = data_.data() + strings->sh_offset + symbol->st_name;
    if (std::string_view(text, ::strnlen(text, strings->sh_size - symbol->st_name)) != name) {
      continue;
    }
    const std::optional<std::uint16_t> version =
        versions ? read_at<std::uint16_t>(data_, versions->sh_offset + i * 2) : std::nullopt;
    const bool hidden_version = version && (*version & 0x8000) != 0;
    if (!hidden_version) {
      return symbol->st_value;
    }
    found = symbol->st_value;  // only a non-default version: still the function
  }
  return found;
}

}  // namespace rtrace::recorder::attach
