#include "formats/apitrace/container.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <vector>

#include "formats/apitrace/stream_sniffer.h"
#include "io/standard_stream.h"

namespace rtrace::apitrace {
namespace {

// Enough of the file to tell the containers apart (and a plain call stream from Brotli data).
constexpr std::size_t kSniffBytes = 64;

Container sniff(const std::vector<std::uint8_t>& head) {
  if (head.size() >= 2 && head[0] == 'a' && head[1] == 't') {
    return Container::Snappy;
  }
  if (head.size() >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
    return Container::Gzip;
  }
  if (head.size() >= 4 && head[0] == 0x28 && head[1] == 0xb5 && head[2] == 0x2f &&
      head[3] == 0xfd) {
    return Container::Zstd;
  }
  if (looks_like_call_stream(head)) {
    return Container::Plain;
  }
  return Container::Brotli;
}

// What made the container stop, kept for check_end.
struct Failure {
  std::exception_ptr error;
};

// Ends the stream at the first failure of `inner` instead of failing the read that found it,
// which would lose the bytes read before it; the failure waits in `failure` for check_end.
class DeferringSource final : public ByteSource {
 public:
  DeferringSource(std::unique_ptr<ByteSource> inner, std::shared_ptr<Failure> failure)
      : inner_(std::move(inner)), failure_(std::move(failure)) {}
  std::size_t read(std::span<std::uint8_t> buffer) override {
    if (failure_->error) {
      return 0;
    }
    try {
      return inner_->read(buffer);
    } catch (const std::exception&) {
      failure_->error = std::current_exception();
      return 0;
    }
  }

 private:
  std::unique_ptr<ByteSource> inner_;
  std::shared_ptr<Failure> failure_;
};

}  // namespace

std::string_view container_name(Container container) {
  switch (container) {
    case Container::Snappy:
      return "Snappy";
    case Container::Gzip:
      return "Zlib";
    case Container::Zstd:
      return "Zstd";
    case Container::Brotli:
      return "Brotli";
    case Container::Plain:
      return "None";
  }
  return "Unknown";
}

OpenedTrace open_trace(const std::string& path, Diagnostics& diagnostics) {
  std::string name = path;
  int fd = STDIN_FILENO;
  bool owned = false;
  if (names_standard_stream(path) || path.empty()) {
    name = "<stdin>";
  } else {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      throw std::runtime_error(path + ": " + std::strerror(errno));
    }
    owned = true;
  }
  std::uint64_t file_size = 0;
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
    file_size = static_cast<std::uint64_t>(info.st_size);
  }
  return open_trace(std::make_unique<FdSource>(fd, owned), name, file_size, diagnostics);
}

namespace {

// A cut gzip or zstd stream is a warning (as a cut plain file is), corrupt data or a decompression
// bomb (also Brotli's) an error; both at the compressed offset.
void report_decompressor_damage(const ByteSource* decompressor, const std::string& name,
                                Diagnostics& diagnostics) {
  if (decompressor == nullptr || !decompressor->damage()) {
    return;
  }
  const StreamDamage& damage = *decompressor->damage();
  if (damage.fatal) {
    throw InputError(name, damage.offset, damage.message);
  }
  diagnostics.warning(name, damage.offset, damage.message);
}

}  // namespace

OpenedTrace open_trace(std::unique_ptr<ByteSource> file, const std::string& name,
                       std::uint64_t file_size, Diagnostics& diagnostics) {
  OpenedTrace opened;
  opened.file_size = file_size;

  // Sniff the first bytes, then hand them back in front of the rest.
  std::vector<std::uint8_t> head(kSniffBytes);
  std::size_t got = 0;
  while (got < head.size()) {
    const std::size_t n = file->read(std::span(head).subspan(got));
    if (n == 0) {
      break;
    }
    got += n;
  }
  head.resize(got);
  if (head.empty()) {
    throw InputError(name, 0, "empty file (not an apitrace trace)");
  }
  opened.container = sniff(head);
  file = std::make_unique<PrefixedSource>(std::move(head), std::move(file));
  // The project's gzip and zstd sources, and the Brotli one at its limit, end the stream at damage
  // and describe it afterwards (ByteSource::damage); check_end reports it, after every call decoded
  // before it.
  const ByteSource* decompressor = nullptr;
  switch (opened.container) {
    case Container::Snappy:
      file = make_snappy_chunk_source(std::move(file), name, diagnostics);
      break;
    case Container::Gzip:
      file = make_gzip_source(std::move(file));
      decompressor = file.get();
      break;
    case Container::Zstd:
      file = make_zstd_source(std::move(file));
      decompressor = file.get();
      break;
    case Container::Brotli:
      file = make_brotli_source(std::move(file), name, diagnostics);
      decompressor = file.get();
      break;
    case Container::Plain:
      break;
  }
  auto failure = std::make_shared<Failure>();
  opened.stream = std::make_unique<StreamWindow>(
      std::make_unique<DeferringSource>(std::move(file), failure), name);
  opened.check_end = [failure, name, stream = opened.stream.get(), decompressor, &diagnostics] {
    if (!failure->error) {
      report_decompressor_damage(decompressor, name, diagnostics);
      return;
    }
    try {
      std::rethrow_exception(failure->error);
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& error) {
      // The project's gzip and zstd sources do not know offsets: give the stream's.
      throw InputError(name, stream->offset(), error.what());
    }
  };
  return opened;
}

}  // namespace rtrace::apitrace
