#include "tracer/session/maps_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>

namespace rtrace::tracer {
namespace {

bool parse_hex(const char*& p, const char* end, std::uint64_t& value) {
  const char* start = p;
  value = 0;
  while (p < end) {
    const char c = *p;
    unsigned digit = 0;
    if (c >= '0' && c <= '9') {
      digit = static_cast<unsigned>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<unsigned>(c - 'a' + 10);
    } else {
      break;
    }
    value = (value << 4) | digit;
    ++p;
  }
  return p != start;
}

const char* skip_field(const char* p, const char* end) {
  while (p < end && *p != ' ') {
    ++p;
  }
  while (p < end && *p == ' ') {
    ++p;
  }
  return p;
}

// One line: "from-to perms offset dev inode   path". Returns false when the encoder is full
// (the mappings that fit are kept whole).
bool encode_line(const char* line, const char* end, PacketEncoder& encoder) {
  const char* p = line;
  std::uint64_t from = 0;
  std::uint64_t to = 0;
  if (!parse_hex(p, end, from) || p >= end || *p != '-') {
    return true;
  }
  ++p;
  if (!parse_hex(p, end, to) || p >= end || *p != ' ') {
    return true;
  }
  ++p;
  if (end - p < 4 || p[2] != 'x') {
    return true;
  }
  p = skip_field(p, end);  // perms
  p = skip_field(p, end);  // offset
  p = skip_field(p, end);  // device
  p = skip_field(p, end);  // inode
  if (p >= end) {
    return true;  // anonymous executable memory has no module to resolve against
  }
  const auto path_length = static_cast<std::size_t>(end - p);
  if (encoder.remaining() < 8 + 16 + sprtrace::string_field_size(path_length)) {
    return false;
  }
  encoder.begin_packet(sprtrace::PacketType::MemoryMap);
  encoder.pointer(from);
  encoder.pointer(to);
  encoder.string(p, path_length);
  encoder.end_packet();
  return true;
}

}  // namespace

bool encode_executable_mappings(PacketEncoder& encoder) {
  const int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  // A line holds a path of up to PATH_MAX bytes plus about 100 bytes of fields.
  char buffer[PATH_MAX + 512];
  std::size_t kept = 0;
  bool room = true;
  while (room) {
    const ssize_t got = ::read(fd, buffer + kept, sizeof buffer - kept);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      break;
    }
    const char* const end = buffer + kept + got;
    const char* line = buffer;
    for (const char* nl = line; nl < end; ++nl) {
      if (*nl == '\n') {
        room = room && encode_line(line, nl, encoder);
        line = nl + 1;
      }
    }
    kept = static_cast<std::size_t>(end - line);
    if (kept == sizeof buffer) {
      kept = 0;  // a line longer than any real one: drop it
    }
    std::memmove(buffer, line, kept);
  }
  ::close(fd);
  return true;
}

}  // namespace rtrace::tracer
