#include "exports/pprof/elf_identity.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cstring>
#include <vector>

namespace rtrace::exporters {
namespace {

// Executable mappings start on page boundaries; traces come from systems with 4 KiB pages.
constexpr std::uint64_t kPageSize = 4096;
// Bounds against a damaged file: real binaries have a few dozen program headers and notes of a
// few hundred bytes.
constexpr std::size_t kMaxProgramHeaders = 4096;
constexpr std::size_t kMaxNoteBytes = 1 << 16;

class File {
 public:
  explicit File(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  bool open() const { return fd_ >= 0; }
  // Exactly `size` bytes at `offset`, or false.
  bool read(std::uint64_t offset, void* into, std::size_t size) const {
    std::size_t done = 0;
    while (done < size) {
      const ssize_t got = ::pread(fd_, static_cast<char*>(into) + done, size - done,
                                  static_cast<off_t>(offset + done));
      if (got <= 0) {
        return false;
      }
      done += static_cast<std::size_t>(got);
    }
    return true;
  }

 private:
  int fd_;
};

std::string hex(const unsigned char* bytes, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (std::size_t i = 0; i < size; ++i) {
    text += kDigits[bytes[i] >> 4];
    text += kDigits[bytes[i] & 0xf];
  }
  return text;
}

std::uint64_t align4(std::uint64_t size) {
  return (size + 3) & ~std::uint64_t{3};
}

// The build-id among the notes of one PT_NOTE segment, or "".
template <typename Nhdr>
std::string build_id_in(const std::vector<unsigned char>& notes) {
  std::uint64_t at = 0;
  while (at + sizeof(Nhdr) <= notes.size()) {
    Nhdr note;
    std::memcpy(&note, notes.data() + at, sizeof note);
    const std::uint64_t name_at = at + sizeof note;
    const std::uint64_t desc_at = name_at + align4(note.n_namesz);
    const std::uint64_t next = desc_at + align4(note.n_descsz);
    if (next > notes.size()) {
      return "";
    }
    if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
        std::memcmp(notes.data() + name_at, "GNU", 4) == 0) {
      return hex(notes.data() + desc_at, note.n_descsz);
    }
    at = next;
  }
  return "";
}

template <typename Ehdr, typename Phdr, typename Nhdr>
std::optional<ElfIdentity> read_identity(const File& file) {
  Ehdr header;
  if (!file.read(0, &header, sizeof header) || header.e_phentsize != sizeof(Phdr) ||
      header.e_phnum > kMaxProgramHeaders) {
    return std::nullopt;
  }
  std::vector<Phdr> segments(header.e_phnum);
  if (!file.read(header.e_phoff, segments.data(), segments.size() * sizeof(Phdr))) {
    return std::nullopt;
  }
  ElfIdentity identity;
  bool code_found = false;
  for (const Phdr& segment : segments) {
    if (!code_found && segment.p_type == PT_LOAD && (segment.p_flags & PF_X) != 0) {
      identity.code_offset = segment.p_offset & ~(kPageSize - 1);
      code_found = true;
    }
    if (identity.build_id.empty() && segment.p_type == PT_NOTE &&
        segment.p_filesz <= kMaxNoteBytes) {
      std::vector<unsigned char> notes(segment.p_filesz);
      if (file.read(segment.p_offset, notes.data(), notes.size())) {
        identity.build_id = build_id_in<Nhdr>(notes);
      }
    }
  }
  return identity;
}

}  // namespace

std::optional<ElfIdentity> read_elf_identity(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0 || !S_ISREG(status.st_mode)) {
    return std::nullopt;
  }
  const File file(path);
  unsigned char ident[EI_NIDENT];
  if (!file.open() || !file.read(0, ident, sizeof ident) ||
      std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
    return std::nullopt;
  }
  const unsigned char native =
      std::endian::native == std::endian::little ? ELFDATA2LSB : ELFDATA2MSB;
  if (ident[EI_DATA] != native) {
    return std::nullopt;
  }
  if (ident[EI_CLASS] == ELFCLASS64) {
    return read_identity<Elf64_Ehdr, Elf64_Phdr, Elf64_Nhdr>(file);
  }
  if (ident[EI_CLASS] == ELFCLASS32) {
    return read_identity<Elf32_Ehdr, Elf32_Phdr, Elf32_Nhdr>(file);
  }
  return std::nullopt;
}

}  // namespace rtrace::exporters
