#include "tracer/session/got_relocations.h"

namespace rtrace::tracer {
namespace {

// The dynamic linker relocates the dynamic section's addresses in place on most targets, not
// where it is read-only (the vDSO's): an address below the load address is still an offset.
template <typename T>
const T* dynamic_pointer(const dl_phdr_info& info, ElfW(Addr) value) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): an address the ELF tables hold as a number
  return reinterpret_cast<const T*>(value < info.dlpi_addr ? value + info.dlpi_addr : value);
}

void read_segments(const dl_phdr_info& info, DynamicObject& object) {
  bool first = true;
  for (ElfW(Half) i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info.dlpi_phdr[i];
    const std::uintptr_t low = info.dlpi_addr + header.p_vaddr;
    const std::uintptr_t high = low + header.p_memsz;
    if (header.p_type == PT_LOAD) {
      object.low = first || low < object.low ? low : object.low;
      object.high = first || high > object.high ? high : object.high;
      first = false;
    } else if (header.p_type == PT_GNU_RELRO) {
      object.relro_low = low;
      object.relro_high = high;
    } else if (header.p_type == PT_DYNAMIC) {
      // NOLINTNEXTLINE(performance-no-int-to-ptr): an address the ELF tables hold as a number
      object.key = reinterpret_cast<const void*>(low);
    }
  }
}

void read_dynamic_section(const dl_phdr_info& info, DynamicObject& object) {
  std::size_t plt_bytes = 0;
  std::size_t relocation_bytes = 0;
  for (const auto* entry = static_cast<const ElfW(Dyn)*>(object.key); entry->d_tag != DT_NULL;
       ++entry) {
    const ElfW(Addr) value = entry->d_un.d_ptr;
    switch (entry->d_tag) {
      case DT_SYMTAB:
        object.symbols = dynamic_pointer<ElfW(Sym)>(info, value);
        break;
      case DT_STRTAB:
        object.strings = dynamic_pointer<char>(info, value);
        break;
      case DT_GNU_HASH:
        object.gnu_hash = dynamic_pointer<std::uint32_t>(info, value);
        break;
      case DT_HASH:
        object.sysv_hash = dynamic_pointer<std::uint32_t>(info, value);
        break;
      case DT_VERSYM:
        object.versions = dynamic_pointer<ElfW(Half)>(info, value);
        break;
      case DT_JMPREL:
        object.plt_relocations = dynamic_pointer<ElfW(Rela)>(info, value);
        break;
      case DT_PLTRELSZ:
        plt_bytes = entry->d_un.d_val;
        break;
      case DT_RELA:
        object.relocations = dynamic_pointer<ElfW(Rela)>(info, value);
        break;
      case DT_RELASZ:
        relocation_bytes = entry->d_un.d_val;
        break;
      default:
        break;
    }
  }
  object.plt_relocation_count = plt_bytes / sizeof(ElfW(Rela));
  object.relocation_count = relocation_bytes / sizeof(ElfW(Rela));
}

}  // namespace

DynamicObject read_dynamic_object(const dl_phdr_info& info) {
  DynamicObject object;
  object.base = info.dlpi_addr;
  read_segments(info, object);
  if (object.key != nullptr) {
    read_dynamic_section(info, object);
  }
  return object;
}

// DT_HASH holds the count; the GNU hash table does not: the last chain that a bucket starts
// ends at the highest index (its entry has the lowest bit set).
std::uint32_t DynamicObject::symbol_count() const {
  if (sysv_hash != nullptr) {
    return sysv_hash[1];
  }
  if (gnu_hash == nullptr) {
    return 0;
  }
  const std::uint32_t buckets_count = gnu_hash[0];
  const std::uint32_t first_symbol = gnu_hash[1];
  const std::uint32_t bloom_words = gnu_hash[2];
  const auto* buckets = reinterpret_cast<const std::uint32_t*>(
      reinterpret_cast<const ElfW(Addr)*>(gnu_hash + 4) + bloom_words);
  const std::uint32_t* chain = buckets + buckets_count;
  std::uint32_t last = 0;
  for (std::uint32_t i = 0; i < buckets_count; ++i) {
    last = buckets[i] > last ? buckets[i] : last;
  }
  if (last < first_symbol) {
    return first_symbol;
  }
  while ((chain[last - first_symbol] & 1U) == 0) {
    ++last;
  }
  return last + 1;
}

bool DynamicObject::exports_function(std::uint32_t index) const {
  const ElfW(Sym)& symbol = symbols[index];
  const unsigned type = ELF64_ST_TYPE(symbol.st_info);
  const unsigned binding = ELF64_ST_BIND(symbol.st_info);
  return type == STT_FUNC && (binding == STB_GLOBAL || binding == STB_WEAK) &&
         symbol.st_shndx != SHN_UNDEF && symbol.st_value != 0 &&
         ELF64_ST_VISIBILITY(symbol.st_other) == STV_DEFAULT &&
         (versions == nullptr || (versions[index] & 0x8000) == 0);
}

}  // namespace rtrace::tracer
