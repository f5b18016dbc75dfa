#include "formats/apitrace/container.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace rtrace::apitrace {
namespace {

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
  return Container::Brotli;
}

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
  }
  return "Unknown";
}

OpenedTrace open_trace(const std::string& path, Diagnostics& diagnostics) {
  OpenedTrace opened;
  std::string name = path;
  int fd = STDIN_FILENO;
  bool owned = false;
  if (path == "-" || path.empty()) {
    name = "<stdin>";
  } else {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      throw std::runtime_error(path + ": " + std::strerror(errno));
    }
    owned = true;
  }
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
    opened.file_size = static_cast<std::uint64_t>(info.st_size);
  }
  std::unique_ptr<ByteSource> file = std::make_unique<FdSource>(fd, owned);

  // Sniff the first bytes, then hand them back in front of the rest.
  std::vector<std::uint8_t> head(4);
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
  switch (opened.container) {
    case Container::Snappy:
      file = make_snappy_chunk_source(std::move(file), name, diagnostics);
      break;
    case Container::Gzip:
      file = make_gzip_source(std::move(file));
      break;
    case Container::Zstd:
      file = make_zstd_source(std::move(file));
      break;
    case Container::Brotli:
      file = make_brotli_source(std::move(file), name, diagnostics);
      break;
  }
  opened.stream = std::make_unique<InputStream>(std::move(file), name);
  return opened;
}

}  // namespace rtrace::apitrace
