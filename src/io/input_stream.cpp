#include "io/input_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "io/diagnostics.h"
#include "io/mapped_file.h"
#include "io/progress.h"
#include "io/standard_stream.h"

namespace rtrace {
namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;
// How much of a mapped file a fill vouches for at once (each costs an fstat).
constexpr std::size_t kMappedWindow = std::size_t{16} << 20;

Compression sniff_compression(std::span<const std::uint8_t> head) {
  if (head.size() >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
    return Compression::Gzip;
  }
  if (head.size() >= 4 && head[0] == 0x28 && head[1] == 0xb5 && head[2] == 0x2f &&
      head[3] == 0xfd) {
    return Compression::Zstd;
  }
  return Compression::None;
}

// A regular file that is not compressed, mapped; nothing when it cannot be mapped or needs
// decompressing (then it is read).
std::unique_ptr<InputStream> open_mapped(int fd, const std::string& path, bool show_progress) {
  std::unique_ptr<MappedFile> mapped = MappedFile::map(fd, path);
  if (!mapped) {
    return nullptr;
  }
  const std::size_t head = mapped->readable(0, 4);
  if (sniff_compression(mapped->bytes().first(head)) != Compression::None) {
    return nullptr;
  }
  std::unique_ptr<Progress> progress =
      show_progress ? std::make_unique<Progress>("reading " + path, mapped->size(), true) : nullptr;
  return std::make_unique<InputStream>(std::move(mapped), path, std::move(progress));
}

}  // namespace

InputStream::InputStream(std::unique_ptr<ByteSource> source, std::string name)
    : source_(std::move(source)), name_(std::move(name)) {}

InputStream::InputStream(std::shared_ptr<MappedFile> mapped, std::string name,
                         std::unique_ptr<Progress> progress)
    : mapped_(std::move(mapped)),
      progress_(std::move(progress)),
      name_(std::move(name)),
      data_(mapped_->bytes().data()) {}

InputStream::InputStream(std::span<const std::uint8_t> bytes, std::string name)
    : name_(std::move(name)), data_(bytes.data()), end_(bytes.size()), eof_(true) {}

InputStream::~InputStream() = default;

std::unique_ptr<InputStream> InputStream::read_again() const {
  if (!mapped_) {
    return nullptr;
  }
  return std::make_unique<InputStream>(mapped_, name_, nullptr);
}

bool InputStream::fill(std::size_t wanted) {
  if (mapped_) {
    return fill_mapped(wanted);
  }
  if (!source_) {  // bytes in memory: all of them are there from the start
    return end_ - begin_ >= wanted;
  }
  // The bytes left are moved to the front when they do not fit behind, and whenever that moves
  // fewer bytes than were consumed (so each byte is moved at most about once): the buffer
  // then grows only for a peek or a line longer than half of it, never with the input.
  const std::size_t left = end_ - begin_;
  if (begin_ > 0 &&
      (buffer_.size() - begin_ < wanted || (!eof_ && left < wanted && left <= begin_))) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  // Grow in step with data that really arrives, never to a size read from the input.
  while (end_ - begin_ < wanted && !eof_) {
    if (buffer_.size() - end_ < kChunk / 4) {
      buffer_.resize(std::max(buffer_.size() * 2, end_ + kChunk));
    }
    const std::size_t n = source_->read(std::span(buffer_).subspan(end_));
    if (n == 0) {
      eof_ = true;
    }
    end_ += n;
  }
  data_ = buffer_.data();
  return end_ - begin_ >= wanted;
}

// begin_ and end_ are offsets in the file. A truncation found may leave less than was handed out
// before: what lies beyond it is not the file's any more.
bool InputStream::fill_mapped(std::size_t wanted) {
  if (begin_ - released_ >= kMappedWindow) {
    released_ = mapped_->release(released_, begin_);
  }
  if (!eof_) {
    const std::size_t asked = std::max(wanted, kMappedWindow);
    const std::size_t got = mapped_->readable(begin_, asked);
    eof_ = got < asked;
    if (progress_ && begin_ + got > end_) {
      progress_->advance(begin_ + got - end_);
    }
    end_ = begin_ + got;
  }
  return end_ - begin_ >= wanted;
}

std::span<const std::uint8_t> InputStream::peek(std::size_t n) {
  if (end_ - begin_ < n) {
    if (n > kMaxPeek) {
      throw std::logic_error("InputStream::peek beyond kMaxPeek");
    }
    fill(n);
  }
  return {data_ + begin_, end_ - begin_};
}

void InputStream::consume(std::size_t n) {
  n = std::min(n, end_ - begin_);
  begin_ += n;
  consumed_ += n;
}

std::optional<std::string_view> InputStream::read_line(std::size_t max_length) {
  std::size_t searched = 0;
  for (;;) {
    const std::uint8_t* start = data_ + begin_;
    const std::size_t available = end_ - begin_;
    // memchr() must not see the null data() of a still empty buffer, even for 0 bytes.
    const void* nl =
        available > searched ? std::memchr(start + searched, '\n', available - searched) : nullptr;
    if (nl != nullptr) {
      const std::size_t length = static_cast<const std::uint8_t*>(nl) - start;
      if (length > max_length) {
        break;
      }
      ++lines_;
      consume(length + 1);
      return std::string_view(reinterpret_cast<const char*>(start), length);
    }
    searched = available;
    if (available > max_length) {
      break;
    }
    if (!fill(available + 1)) {
      if (end_ == begin_) {
        return std::nullopt;
      }
      // The last line has no newline.
      const std::size_t length = end_ - begin_;
      const char* text = reinterpret_cast<const char*>(data_ + begin_);
      ++lines_;
      consume(length);
      return std::string_view(text, length);
    }
  }
  throw InputError(name_, lines_ + 1,
                   "line longer than " + std::to_string(max_length) + " bytes (not a text trace?)");
}

void InputStream::report_truncation() const {
  if (!mapped_) {
    return;
  }
  // Asked once more: a truncation after the last fill may have zeroed bytes already read.
  mapped_->readable(0, 0);
  if (mapped_->truncated_at()) {
    throw InputError(name_, *mapped_->truncated_at(), mapped_->truncation_message());
  }
}

void InputStream::report_damage(Diagnostics& diagnostics) const {
  if (mapped_) {
    report_truncation();
    return;
  }
  if (!source_) {
    return;
  }
  const std::optional<StreamDamage>& damage = source_->damage();
  if (!damage) {
    return;
  }
  if (damage->fatal) {
    throw InputError(name_, damage->offset, damage->message);
  }
  diagnostics.warning(name_, damage->offset, damage->message);
}

std::unique_ptr<InputStream> open_input(std::unique_ptr<ByteSource> source, std::string name) {
  // Sniff the first bytes, then hand them back in front of the rest.
  std::vector<std::uint8_t> head(4);
  std::size_t got = 0;
  while (got < head.size()) {
    const std::size_t n = source->read(std::span(head).subspan(got));
    if (n == 0) {
      break;
    }
    got += n;
  }
  head.resize(got);
  const Compression compression = sniff_compression(head);
  std::unique_ptr<ByteSource> bytes =
      std::make_unique<PrefixedSource>(std::move(head), std::move(source));
  if (compression == Compression::Gzip) {
    bytes = make_gzip_source(std::move(bytes));
  }
  if (compression == Compression::Zstd) {
    bytes = make_zstd_source(std::move(bytes));
  }
  return std::make_unique<InputStream>(std::move(bytes), std::move(name));
}

std::unique_ptr<InputStream> open_input(const std::string& path) {
  return open_input(path, false);
}

std::unique_ptr<InputStream> open_input(const std::string& path, bool show_progress) {
  if (names_standard_stream(path) || path.empty()) {
    std::unique_ptr<ByteSource> source = std::make_unique<FdSource>(STDIN_FILENO, false, "<stdin>");
    if (show_progress) {
      source = std::make_unique<ProgressSource>(
          std::move(source),
          std::make_unique<Progress>("reading standard input", std::nullopt, true));
    }
    return open_input(std::move(source), "<stdin>");
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw std::runtime_error(path + ": " + std::strerror(errno));
  }
  std::unique_ptr<ByteSource> source = std::make_unique<FdSource>(fd, true, path);
  struct stat st {};
  const bool known = ::fstat(fd, &st) == 0;
  if (known && S_ISDIR(st.st_mode)) {
    throw std::runtime_error(path + ": is a directory, not a trace");
  }
  if (known && S_ISREG(st.st_mode)) {
    if (std::unique_ptr<InputStream> mapped = open_mapped(fd, path, show_progress)) {
      return mapped;
    }
  }
  if (show_progress) {
    // The size of a regular file is the total; a pipe or device has none.
    const std::optional<std::uint64_t> total =
        known && S_ISREG(st.st_mode) ? std::optional<std::uint64_t>(st.st_size) : std::nullopt;
    source = std::make_unique<ProgressSource>(
        std::move(source), std::make_unique<Progress>("reading " + path, total, true));
  }
  return open_input(std::move(source), path);
}

}  // namespace rtrace
