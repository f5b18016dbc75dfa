// What a profile's mapping needs from a module file that the trace does not record: the GNU
// build-id (so that pprof finds the right binary, also under $PPROF_BINARY_PATH) and the file
// offset of the executable segment (a trace's mappings are the executable ones; pprof turns an
// address into the file's own address from the mapping's start and this offset).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace rtrace::exporters {

struct ElfIdentity {
  std::string build_id;           // lower-case hexadecimal; "" when the file has none
  std::uint64_t code_offset = 0;  // file offset of the first executable PT_LOAD, page-aligned
};

// Reads the ELF file at `path` (a regular file only: a FIFO or a device is never opened).
// Nothing when it cannot be read or is not an ELF file of this machine's byte order.
std::optional<ElfIdentity> read_elf_identity(const std::string& path);

}  // namespace rtrace::exporters
