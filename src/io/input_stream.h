// Buffered reading of one input (a file, or standard input), decompressed transparently.
//
// Readers peek at the bytes they need, decode them in place and consume them. Nothing is read
// ahead beyond what a peek asks for plus one chunk, so memory stays bounded by the largest record
// a reader accepts, never by the size of the input or by a size field read from it.
//
// A regular file that is not compressed is not read but mapped (io/mapped_file.h): peeks point
// into the mapping, which saves copying every byte into the buffer; the pages left behind are
// given back as reading goes on, so a file costs a window of memory, not its size. It is read as
// long as it was when opened; a truncation found while reading ends the input there, and
// report_damage() makes it an error at that offset.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_source.h"

namespace rtrace {

class Diagnostics;
class MappedFile;
class Progress;

enum class Compression : std::uint8_t { None, Gzip, Zstd };

class InputStream {
 public:
  InputStream(std::unique_ptr<ByteSource> source, std::string name);
  // Reads `mapped`, counting what it hands out into `progress` (when there is one).
  InputStream(std::shared_ptr<MappedFile> mapped, std::string name,
              std::unique_ptr<Progress> progress);
  // Reads `bytes` where they lie, without copying them: they must outlive the stream (the fast
  // leaks path's second pass over the stretches it kept, the binary format's leaks_scan_read.h).
  InputStream(std::span<const std::uint8_t> bytes, std::string name);
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;
  ~InputStream();

  // The buffered bytes from the current position: at least `n` of them unless the input ends
  // first (then all that is left). `n` must not exceed kMaxPeek.
  std::span<const std::uint8_t> peek(std::size_t n);
  void consume(std::size_t n);

  // The next line without its '\n' (a final line may lack it), or nothing at the end. Throws
  // InputError when a line is longer than `max_length`.
  std::optional<std::string_view> read_line(std::size_t max_length = kMaxLine);

  // Bytes consumed so far (of the decompressed data).
  std::uint64_t offset() const { return consumed_; }
  // Lines returned so far by read_line.
  std::uint64_t line_number() const { return lines_; }
  const std::string& name() const { return name_; }
  bool at_end() { return peek(1).empty(); }

  // A second reading of the same mapped file from its start, for a first pass ahead of this one
  // (the file is mapped once); nothing when this input is not a mapped file.
  std::unique_ptr<InputStream> read_again() const;

  // The mapped file this input reads, for a first pass that walks it where it lies (the fast
  // leaks scan); null when the input is not a mapped file.
  MappedFile* mapping() const { return mapped_.get(); }

  // Call when done reading. Compressed data that ended early was handed to the reader as an
  // ordinary end of input; this reports it, at its compressed byte offset: a truncated stream as
  // a warning (as a truncated plain file is), corrupt data or a decompression bomb by throwing
  // InputError. A mapped file found truncated while it was read throws InputError at the offset
  // where it now ends. Nothing happens for undamaged input.
  void report_damage(Diagnostics& diagnostics) const;
  // Only the mapped file's part of report_damage(): throws InputError when it was found truncated
  // (also to be called when a reader failed: bytes past the cut may have read as zeros).
  void report_truncation() const;

  static constexpr std::size_t kMaxPeek = std::size_t{64} << 20;
  static constexpr std::size_t kMaxLine = std::size_t{1} << 20;

 private:
  bool fill(std::size_t wanted);
  bool fill_mapped(std::size_t wanted);

  std::unique_ptr<ByteSource> source_;  // null when mapped_ or bytes in memory are read
  std::shared_ptr<MappedFile> mapped_;
  std::unique_ptr<Progress> progress_;  // of mapped_
  std::string name_;
  std::vector<std::uint8_t> buffer_;
  // Where begin_ and end_ count from: buffer_'s data, the mapped file's first byte, or the
  // bytes in memory.
  const std::uint8_t* data_ = nullptr;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  std::size_t released_ = 0;  // of the mapped file: pages before this were given back
  std::uint64_t consumed_ = 0;
  std::uint64_t lines_ = 0;
};

// Opens `path` ("-" for standard input) and detects gzip or zstd compression by content.
// Throws std::runtime_error (naming the file) when it cannot be opened.
std::unique_ptr<InputStream> open_input(const std::string& path);
// The same, with a progress line on standard error while it is read when `show_progress`
// (io/progress.h: bytes read of the file's size, and the rate; cleared at the end).
std::unique_ptr<InputStream> open_input(const std::string& path, bool show_progress);

// The same over an already open source (tests, pipes); `name` appears in messages.
std::unique_ptr<InputStream> open_input(std::unique_ptr<ByteSource> source, std::string name);

}  // namespace rtrace
