// A regular file read through a read-only private mapping, guarded against the file being
// truncated meanwhile.
//
// Reading a mapped page that a truncation cut off raises SIGBUS, which would kill the process.
// A SIGBUS handler, installed once, recognises a fault inside a live MappedFile, maps zero pages
// over the cut-off rest of that mapping (so that the faulting access and any later one read
// zeros instead of faulting again), notes where it happened, and returns; any other SIGBUS goes
// on to the handler installed before (or the default action). No non-local jump leaves code that
// runs destructors or holds locks. A reader asks readable() before it trusts a stretch of bytes:
// that checks the file's size now and any fault noted, so that a truncation found becomes a
// clear error at its byte offset, with everything before it read as it was.
//
// A truncation between readable() and the use of the bytes cannot be seen in time: those bytes
// may read as zeros (never a crash), and the next readable() reports the truncation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace rtrace {

class MappedFile {
 public:
  // Maps the file open on `fd` (not taken over: a duplicate is kept) with its size now; `name`
  // is for messages. Nothing (read it with read() instead) when `fd` is not a regular file or
  // cannot be mapped, or says it has no bytes (an empty file, or one of /proc that has them
  // only when read).
  static std::unique_ptr<MappedFile> map(int fd, std::string name);
  // The same for the file at `path`; nothing also when it cannot be opened.
  static std::unique_ptr<MappedFile> map(const std::string& path);

  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // The file's bytes as long as it was when mapped. Trust only what readable() vouched for.
  std::span<const std::uint8_t> bytes() const { return {data_, size_}; }
  std::uint64_t size() const { return size_; }
  const std::string& name() const { return name_; }

  // How many of the `length` bytes from `offset` (within bytes()) are still the file's: all of
  // them, or fewer when the file was found truncated (then truncated_at() says where).
  std::size_t readable(std::uint64_t offset, std::size_t length);

  // Gives back the memory of the whole pages between `from` and `to` (offsets within bytes()):
  // reading them again reads them from the file again. A reader that walks the file calls it
  // behind itself, so that its memory is a window of the file, not all of it. Returns where the
  // pages given back end (`to` rounded down to a page), where the next call may start.
  std::uint64_t release(std::uint64_t from, std::uint64_t to) const;

  // The byte offset where the file was found cut short, once it was.
  std::optional<std::uint64_t> truncated_at() const { return truncated_at_; }

  // What to say at truncated_at() (the caller names the file and the offset): "file truncated
  // while being read (it had M bytes)".
  std::string truncation_message() const;

 private:
  MappedFile(int fd, std::string name, const std::uint8_t* data, std::size_t size, int slot);
  void note_truncation(std::uint64_t at);

  int fd_;
  std::string name_;
  const std::uint8_t* data_;
  std::size_t size_;
  int slot_;  // in the SIGBUS handler's table of live mappings
  std::optional<std::uint64_t> truncated_at_;
};

}  // namespace rtrace
