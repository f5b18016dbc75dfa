#include "tracer/output/session_packets.h"

#include <fcntl.h>
#include <malloc.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <climits>
#include <cstring>

#include "tracer/core/proc_self.h"

namespace rtrace::tracer {
namespace {

using sprtrace::PacketType;

// argv[0]: the start of a cmdline file.
void read_process_name(const char* cmdline, char* name, std::size_t capacity) {
  name[0] = '\0';
  const int fd = ::open(cmdline, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return;
  }
  const ssize_t got = ::read(fd, name, capacity - 1);
  ::syscall(SYS_close, fd);  // the interposed close() may refuse descriptors it does not know
  name[got > 0 ? got : 0] = '\0';
}

std::uint32_t saturated_u32(std::size_t value) {
  return value > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(value);
}

}  // namespace

void encode_process_info(PacketEncoder& encoder, pid_t pid, std::uint32_t depth,
                         const char* cmdline) {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  char name[PATH_MAX];
  read_process_name(cmdline, name, sizeof name);
  encoder.begin_packet(PacketType::ProcessInfo);
  encoder.u32(static_cast<std::uint32_t>(pid));
  encoder.u32(static_cast<std::uint32_t>(now.tv_sec));
  encoder.u32(static_cast<std::uint32_t>(now.tv_nsec / 1000));
  encoder.u32(depth);
  encoder.string(name);
  encoder.end_packet();
}

void encode_command_line(PacketEncoder& encoder, pid_t pid, const char* cmdline) {
  static char arguments[kCommandLineBytes];  // static: too large for a small thread stack
  bool cut = false;
  const std::size_t size = read_arguments(cmdline, arguments, sizeof arguments, cut);
  std::uint32_t count = 0;
  for (std::size_t i = 0; i < size; ++i) {
    count += arguments[i] == '\0' ? 1 : 0;
  }
  encoder.begin_packet(PacketType::CommandLine);
  encoder.u32(static_cast<std::uint32_t>(pid));
  encoder.u32(cut ? sprtrace::kCommandLineCut : 0);
  encoder.u32(count);
  for (std::size_t at = 0; at < size;) {
    const std::size_t length = std::strlen(arguments + at);
    encoder.string(arguments + at, length);
    at += length + 1;
  }
  encoder.end_packet();
}

void encode_heap_info(PacketEncoder& encoder, std::uintptr_t heap_bottom) {
  const struct mallinfo2 info = ::mallinfo2();
  encoder.begin_packet(PacketType::HeapInfo);
  encoder.pointer(heap_bottom);
  encoder.pointer(reinterpret_cast<std::uintptr_t>(::sbrk(0)));
  encoder.u32(saturated_u32(info.arena));
  encoder.u32(saturated_u32(info.ordblks));
  encoder.u32(saturated_u32(info.smblks));
  encoder.u32(saturated_u32(info.hblks));
  encoder.u32(saturated_u32(info.hblkhd));
  encoder.u32(saturated_u32(info.usmblks));
  encoder.u32(saturated_u32(info.fsmblks));
  encoder.u32(saturated_u32(info.uordblks));
  encoder.u32(saturated_u32(info.fordblks));
  encoder.u32(saturated_u32(info.keepcost));
  encoder.end_packet();
}

void encode_trace_end(PacketEncoder& encoder, pid_t pid, const SessionEnd& end,
                      const char* status) {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const ResidentSet resident = read_resident_set(status);
  encoder.begin_packet(PacketType::TraceEnd);
  encoder.u32(static_cast<std::uint32_t>(pid));
  encoder.u32(end.reason);
  encoder.u32(end.signal);
  encoder.u32(static_cast<std::uint32_t>(now.tv_sec));
  encoder.u32(static_cast<std::uint32_t>(now.tv_nsec / 1000));
  encoder.u64(resident.peak_bytes);
  encoder.u64(resident.current_bytes);
  encoder.end_packet();
}

}  // namespace rtrace::tracer
