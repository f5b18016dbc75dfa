#include "tracer/core/loaded_symbol.h"

#include <cstdint>
#include <cstring>

namespace rtrace::tracer {
namespace {

// What the lookup needs of an object's dynamic section.
struct DynamicTables {
  const ElfW(Sym) * symbols = nullptr;
  const char* strings = nullptr;
  const std::uint32_t* gnu_hash = nullptr;
  const ElfW(Half) * versions = nullptr;  // DT_VERSYM, absent in unversioned objects
};

// The dynamic linker relocates these entries in place on most targets, not where the dynamic
// section is read-only: an address below the load address is still an offset.
template <typename T>
const T* dynamic_pointer(const dl_phdr_info& object, ElfW(Addr) value) {
  return reinterpret_cast<const T*>(value < object.dlpi_addr ? value + object.dlpi_addr : value);
}

DynamicTables read_dynamic(const dl_phdr_info& object) {
  DynamicTables tables;
  for (ElfW(Half) i = 0; i < object.dlpi_phnum; ++i) {
    if (object.dlpi_phdr[i].p_type != PT_DYNAMIC) {
      continue;
    }
    const auto* entry =
        reinterpret_cast<const ElfW(Dyn)*>(object.dlpi_addr + object.dlpi_phdr[i].p_vaddr);
    for (; entry->d_tag != DT_NULL; ++entry) {
      const ElfW(Addr) value = entry->d_un.d_ptr;
      switch (entry->d_tag) {
        case DT_SYMTAB:
          tables.symbols = dynamic_pointer<ElfW(Sym)>(object, value);
          break;
        case DT_STRTAB:
          tables.strings = dynamic_pointer<char>(object, value);
          break;
        case DT_GNU_HASH:
          tables.gnu_hash = dynamic_pointer<std::uint32_t>(object, value);
          break;
        case DT_VERSYM:
          tables.versions = dynamic_pointer<ElfW(Half)>(object, value);
          break;
        default:
          break;
      }
    }
  }
  return tables;
}

std::uint32_t gnu_hash(const char* name) {
  std::uint32_t hash = 5381;
  for (const auto* c = reinterpret_cast<const unsigned char*>(name); *c != '\0'; ++c) {
    hash = hash * 33 + *c;
  }
  return hash;
}

// A definition the dynamic linker would bind to: defined here, and not a hidden (non-default)
// version such as memcpy@GLIBC_2.2.5 beside memcpy@@GLIBC_2.14.
bool is_default_definition(const DynamicTables& tables, std::uint32_t index) {
  const ElfW(Sym)& symbol = tables.symbols[index];
  if (symbol.st_shndx == SHN_UNDEF || symbol.st_value == 0) {
    return false;
  }
  return tables.versions == nullptr || (tables.versions[index] & 0x8000) == 0;
}

// The GNU hash table: nbuckets, symoffset, bloom size, bloom shift, the bloom words, the buckets,
// then one chain word per symbol from symoffset on (its hash, lowest bit set on the last).
const ElfW(Sym) * look_up(const DynamicTables& tables, const char* name) {
  const std::uint32_t* header = tables.gnu_hash;
  const std::uint32_t buckets_count = header[0];
  const std::uint32_t first_symbol = header[1];
  const std::uint32_t bloom_words = header[2];
  const auto* buckets = reinterpret_cast<const std::uint32_t*>(
      reinterpret_cast<const ElfW(Addr)*>(header + 4) + bloom_words);
  const std::uint32_t* chain = buckets + buckets_count;
  if (buckets_count == 0) {
    return nullptr;
  }
  const std::uint32_t hash = gnu_hash(name);
  std::uint32_t index = buckets[hash % buckets_count];
  if (index < first_symbol) {
    return nullptr;
  }
  for (;; ++index) {
    const std::uint32_t entry = chain[index - first_symbol];
    if ((entry | 1U) == (hash | 1U) &&
        std::strcmp(tables.strings + tables.symbols[index].st_name, name) == 0 &&
        is_default_definition(tables, index)) {
      return &tables.symbols[index];
    }
    if ((entry & 1U) != 0) {
      return nullptr;
    }
  }
}

struct Search {
  const char* file;
  const char* name;
  void* found;
};

bool ends_with_file(const char* path, const char* file) {
  const std::size_t path_length = std::strlen(path);
  const std::size_t file_length = std::strlen(file);
  return path_length > file_length && path[path_length - file_length - 1] == '/' &&
         std::strcmp(path + path_length - file_length, file) == 0;
}

int search_object(dl_phdr_info* info, std::size_t, void* data) {
  auto& search = *static_cast<Search*>(data);
  if (info->dlpi_name == nullptr || !ends_with_file(info->dlpi_name, search.file)) {
    return 0;
  }
  search.found = find_loaded_symbol(*info, search.name);
  return 1;
}

}  // namespace

void* find_loaded_symbol(const dl_phdr_info& object, const char* name) {
  const DynamicTables tables = read_dynamic(object);
  if (tables.symbols == nullptr || tables.strings == nullptr || tables.gnu_hash == nullptr) {
    return nullptr;
  }
  const ElfW(Sym)* symbol = look_up(tables, name);
  if (symbol == nullptr) {
    return nullptr;
  }
  const ElfW(Addr) address = object.dlpi_addr + symbol->st_value;
  if ((symbol->st_info & 0xf) == STT_GNU_IFUNC) {  // ELF64_ST_TYPE and ELF32_ST_TYPE alike
    return reinterpret_cast<void*>(reinterpret_cast<ElfW(Addr) (*)()>(address)());
  }
  return reinterpret_cast<void*>(address);
}

void* find_symbol_in(const char* file, const char* name) {
  Search search{file, name, nullptr};
  ::dl_iterate_phdr(search_object, &search);
  return search.found;
}

}  // namespace rtrace::tracer
