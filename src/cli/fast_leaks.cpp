#include "cli/fast_leaks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <span>

#include "formats/format_registry.h"
#include "formats/sprtrace_binary/binary_reader.h"
#include "io/input_stream.h"
#include "io/mapped_file.h"
#include "io/memory_source.h"
#include "io/progress.h"

namespace rtrace::cli {
namespace {

// An open file descriptor, closed on every way out.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// Reads `length` bytes at `offset` into `out`; false when the file no longer holds them.
bool read_at(int fd, std::uint64_t offset, std::uint64_t length, char* out) {
  while (length > 0) {
    const ssize_t got = ::pread(fd, out, length, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      return false;
    }
    out += got;
    offset += static_cast<std::uint64_t>(got);
    length -= static_cast<std::uint64_t>(got);
  }
  return true;
}

// Kept stretches closer than this are read with one pread (the bytes between are read and
// dropped): fewer system calls for the leaks of a trace, which sit close together.
constexpr std::uint64_t kJoinGap = 4096;
constexpr std::uint64_t kMaxJoined = std::uint64_t{1} << 20;

// The kept pieces, read from the file and joined.
bool read_pieces(int fd, FastLeaksInput& input) {
  std::uint64_t total = 0;
  for (const LeaksScanPiece& piece : input.pieces) {
    input.starts.push_back(total);
    total += piece.length;
  }
  input.bytes.resize(total);
  std::string span_bytes;
  for (std::size_t first = 0; first < input.pieces.size();) {
    // Pieces [first, last) are read with one pread of [from, to).
    const std::uint64_t from = input.pieces[first].offset;
    std::uint64_t to = from + input.pieces[first].length;
    std::size_t last = first + 1;
    while (last < input.pieces.size() && input.pieces[last].offset >= to &&
           input.pieces[last].offset - to <= kJoinGap &&
           input.pieces[last].offset + input.pieces[last].length - from <= kMaxJoined) {
      to = input.pieces[last].offset + input.pieces[last].length;
      ++last;
    }
    span_bytes.resize(to - from);
    if (!read_at(fd, from, to - from, span_bytes.data())) {
      return false;
    }
    for (std::size_t i = first; i < last; ++i) {
      const LeaksScanPiece& piece = input.pieces[i];
      std::copy_n(span_bytes.data() + (piece.offset - from), piece.length,
                  input.bytes.data() + input.starts[i]);
    }
    first = last;
  }
  return true;
}

// The offset in the file of an offset in the joined bytes.
std::uint64_t file_offset(const FastLeaksInput& input, std::uint64_t joined) {
  const auto after = std::ranges::upper_bound(input.starts, joined);
  if (after == input.starts.begin()) {
    return joined;
  }
  const auto i = static_cast<std::size_t>(after - input.starts.begin() - 1);
  return input.pieces[i].offset + (joined - input.starts[i]);
}

// Warnings of the second pass, at their offsets in the file.
class FileOffsets final : public Diagnostics {
 public:
  FileOffsets(const FastLeaksInput& input, Diagnostics& target) : input_(input), target_(target) {}

 protected:
  void report(std::string_view file, std::uint64_t position, std::string_view message) override {
    target_.warning(file, file_offset(input_, position), message);
  }

 private:
  const FastLeaksInput& input_;
  Diagnostics& target_;
};

// Gives each call of the second pass its index in the file; a routing call goes on as one that
// cannot leak (kind Other, no arguments nor backtrace).
class TrueIndices final : public ForwardingSink {
 public:
  TrueIndices(const FastLeaksInput& input, TraceSink& next) : ForwardingSink(next), input_(input) {}

  void call(const CallRecord& record) override {
    while (piece_ < input_.pieces.size() && input_.pieces[piece_].call_index == 0) {
      ++piece_;
    }
    const LeaksScanPiece& piece = input_.pieces.at(piece_++);
    CallRecord call = record;
    call.call.index = piece.call_index;
    if (piece.routing_only) {
      call.call.kind = CallKind::Other;
      call.arguments = {};
      call.frames = {};
    }
    next().call(call);
  }

 private:
  const FastLeaksInput& input_;
  std::size_t piece_ = 0;
};

std::unique_ptr<InputStream> joined_stream(const FastLeaksInput& input) {
  return open_input(std::make_unique<MemorySource>(input.bytes), input.name);
}

// The second pass with nowhere to deliver: whether the packets the scan did not check decode.
bool decodes(const FastLeaksInput& input) {
  class Nowhere final : public TraceSink {
    void finish() override {}
  } nowhere;
  CollectingDiagnostics quiet;
  try {
    read_sprtrace_binary(*joined_stream(input), nowhere, quiet);
  } catch (const InputError&) {
    return false;
  }
  return true;
}

}  // namespace

bool fast_leaks_applies(const ProcessOptions& o) {
  const char* disabled = std::getenv("RTRACE_NO_FAST_PATH");
  if (disabled != nullptr && *disabled != '\0' && std::string_view(disabled) != "0") {
    return false;
  }
  return o.leaks && !o.context_mask && !o.resource_mask && !o.include_file && !o.exclude_file &&
         !o.call_address;
}

std::optional<FastLeaksInput> prepare_fast_leaks(const std::string& path, const std::string& name,
                                                 bool show_progress) {
  if (path.empty() || path == "-") {
    return std::nullopt;
  }
  const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return std::nullopt;
  }
  // Mapped, the file is scanned where it lies (no copy of it); read() when it cannot be.
  const std::unique_ptr<MappedFile> mapped = MappedFile::map(fd.get(), name);
  Progress progress("reading " + path, static_cast<std::uint64_t>(st.st_size), show_progress);
  std::optional<LeaksScan> scan =
      scan_binary_leaks(fd.get(), mapped.get(), kMaxKeptBytes, &progress);
  progress.finish();
  if (!scan) {
    return std::nullopt;
  }
  FastLeaksInput input;
  input.name = name;
  input.pieces = std::move(scan->pieces);
  input.file_size = scan->file_size;
  if (!read_pieces(fd.get(), input) || !decodes(input)) {
    return std::nullopt;
  }
  return input;
}

std::vector<Mapping> fast_late_maps(const FastLeaksInput& input) {
  return read_late_maps(*joined_stream(input));
}

void read_fast_leaks(const FastLeaksInput& input, TraceSink& sink, Diagnostics& diagnostics) {
  TrueIndices indices(input, sink);
  FileOffsets offsets(input, diagnostics);
  read_sprtrace_binary(*joined_stream(input), indices, offsets);
}

}  // namespace rtrace::cli
